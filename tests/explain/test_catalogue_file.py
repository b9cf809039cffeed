"""The explanations files: every shipped one valid against the shipped schema, the reader's refusals (one line
naming the file and the entry), the schema refusing nothing the reader accepts, and a plugin's own file."""

from __future__ import annotations

import importlib
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from torchdoctor.checking import registry
from torchdoctor.explain import Analysis, catalogue, catalogue_file
from torchdoctor.explain.catalogue_file import CatalogueFileError, parse

from support import assert_valid

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted((REPO / "checks").glob("*/explanations.toml"))
WHERE = "acme/explanations.toml"

GOOD = """
[[entry]]
id = "acme.broke"
title = "Acme broke"
patterns = ['acme broke: (\\w+)']
cause = "The acme broke."
fix = "Mend it."
commands = ["acme mend"]
check = "acme.check"
source = "acme/errors.c"
analyse = "analyse_acme"

[[entry.case]]
pattern = 'gear'
evidence = "a gear broke"
fix = "Replace the gear."
commands = ["acme gear --new"]
"""


def analyse_acme(text: str) -> Analysis:
    return Analysis(evidence=("read",))


NAMESPACE = {"__name__": "acme.explanations", "analyse_acme": analyse_acme}


def _refusal(text: str) -> str:
    with pytest.raises(CatalogueFileError) as refused:
        parse(text, WHERE).entries(NAMESPACE)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"{WHERE}: "), message
    return message


def _schema_refuses(text: str) -> bool:
    try:
        assert_valid(tomllib.loads(text), "explanations")
    except Exception:  # jsonschema's ValidationError
        return True
    return False


@pytest.mark.parametrize("path", SHIPPED, ids=[p.parent.name for p in SHIPPED])
def test_every_shipped_file_is_valid_against_the_shipped_schema(path: Path) -> None:
    assert_valid(tomllib.loads(path.read_text(encoding="utf-8")), "explanations")


def test_every_area_with_explanations_has_its_file_and_every_file_is_registered() -> None:
    areas = {p.parent.name for p in (REPO / "checks").glob("*/explanations.py")}
    assert {p.parent.name for p in SHIPPED} == areas and len(areas) == 6
    values = {e.value for e in registry.find_entries(registry.EXPLANATIONS)}
    assert {f"torchdoctor.checks.{area}.explanations:ENTRIES" for area in areas} <= values


@pytest.mark.parametrize("path", SHIPPED, ids=[p.parent.name for p in SHIPPED])
def test_the_shipped_patterns_are_python_3_10s(path: Path) -> None:
    # what tests/test_packaging.py looks for in the string constants of the modules
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    patterns = [
        p for entry in document["entry"] for p in (*entry.get("patterns", ()), *entry.get("symptoms", ()))
    ]
    patterns += [case["pattern"] for entry in document["entry"] for case in entry.get("case", ())]
    newer = [p for p in patterns if "(?>" in p or re.search(r"(?<!\\)[*+?}]\+", p)]
    assert not newer, newer


def test_a_good_file_gives_its_entries_and_cases() -> None:
    read = parse(GOOD, WHERE)
    (entry,) = read.entries(NAMESPACE)
    assert (entry.id, entry.patterns, entry.check, entry.source) == (
        "acme.broke",
        ("acme broke: (\\w+)",),
        "acme.check",
        "acme/errors.c",
    )
    assert (entry.fix.text, entry.fix.commands) == ("Mend it.", ("acme mend",))
    assert entry.analyse is analyse_acme
    (case,) = read.cases("acme.broke")
    assert case.analysis("seen").evidence == ("seen", "a gear broke")
    assert case.fix is not None and case.fix.commands == ("acme gear --new",)
    assert case.compiled.search("A GEAR") is not None  # ignoring case, as an entry's patterns
    assert not _schema_refuses(GOOD)


def test_an_unknown_key_is_refused() -> None:
    message = _refusal(GOOD.replace('analyse = "', 'analyser = "'))
    assert message.startswith(f"{WHERE}: entry 'acme.broke': unknown key 'analyser'")


def test_a_missing_field_is_refused() -> None:
    message = _refusal(GOOD.replace('cause = "The acme broke."\n', ""))
    assert message == f"{WHERE}: entry 'acme.broke': 'cause' is missing"


def test_a_value_of_the_wrong_type_is_refused() -> None:
    message = _refusal(GOOD.replace("patterns = ['acme broke: (\\w+)']", "patterns = 'acme broke'"))
    assert message == f"{WHERE}: entry 'acme.broke': 'patterns' is not a list of non-empty strings"
    message = _refusal(GOOD.replace('title = "Acme broke"', "title = 3"))
    assert message == f"{WHERE}: entry 'acme.broke': 'title' is not a string but a number"


def test_a_pattern_that_does_not_compile_is_refused() -> None:
    message = _refusal(GOOD.replace("(\\w+)']", "(\\w+']"))
    assert message.startswith(f"{WHERE}: entry 'acme.broke': pattern 1 does not compile: missing )")
    message = _refusal(GOOD.replace("pattern = 'gear'", "pattern = 'gear['"))
    assert message.startswith(f"{WHERE}: entry 'acme.broke': case 1: pattern does not compile: ")


def test_an_analyser_the_module_lacks_is_refused() -> None:
    message = _refusal(GOOD.replace('"analyse_acme"', '"analyse_acme_gears"'))
    assert message == (
        f"{WHERE}: entry 'acme.broke': analyse = 'analyse_acme_gears', which acme.explanations does not "
        "define (above the line that reads this file)"
    )


def test_a_duplicate_id_is_refused() -> None:
    message = _refusal(GOOD + GOOD.split("[[entry.case]]")[0])
    assert message == f"{WHERE}: entry 'acme.broke' appears twice"


def test_a_text_that_is_not_toml_is_refused() -> None:
    assert _refusal(GOOD + "\n[[entry]\n").startswith(f"{WHERE}: not TOML: ")


def test_an_entry_without_an_id_is_named_by_its_place() -> None:
    message = _refusal(GOOD + GOOD.split("[[entry.case]]")[0].replace('id = "acme.broke"\n', ""))
    assert message == f"{WHERE}: entry 2 (no id): 'id' is missing"


def test_cases_of_an_entry_the_file_lacks_are_refused() -> None:
    read = parse(GOOD, WHERE)
    with pytest.raises(CatalogueFileError, match=re.escape(f"{WHERE}: no entry 'acme.gone'")):
        read.cases("acme.gone")


# Files the schema refuses; the reader refuses each too. A pattern that does not compile, an analyser the
# module lacks and a duplicate id are beyond what a schema says: only the reader refuses those.
SCHEMA_REFUSES = {
    "unknown key": GOOD.replace('analyse = "', 'analyser = "'),
    "unknown key of a case": GOOD.replace("pattern = 'gear'", "pattern = 'gear'\nwhy = 'rust'"),
    "unknown key at the top": "version = 1\n" + GOOD,
    "no entries": "",
    "entry not a list": 'entry = "acme"',
    "missing title": GOOD.replace('title = "Acme broke"\n', ""),
    "missing fix": GOOD.replace('fix = "Mend it."\n', ""),
    "case without a pattern": GOOD.replace("pattern = 'gear'\n", ""),
    "patterns a string": GOOD.replace("patterns = ['acme broke: (\\w+)']", "patterns = 'acme broke'"),
    "patterns empty": GOOD.replace("patterns = ['acme broke: (\\w+)']", "patterns = []"),
    "an empty pattern": GOOD.replace("patterns = ['acme broke: (\\w+)']", "patterns = ['']"),
    "title a number": GOOD.replace('title = "Acme broke"', "title = 3"),
    "empty cause": GOOD.replace('cause = "The acme broke."', 'cause = ""'),
    "commands not strings": GOOD.replace('commands = ["acme mend"]', "commands = [1]"),
    "check a boolean": GOOD.replace('check = "acme.check"', "check = true"),
    "an id with a space": GOOD.replace('id = "acme.broke"', 'id = "acme broke"'),
    "analyse not a name": GOOD.replace('"analyse_acme"', '"acme.analyse"'),
    "case not a table": GOOD.split("[[entry.case]]")[0] + "case = ['gear']\n",
    "cases without an analyser": GOOD.replace('analyse = "analyse_acme"\n', ""),
    "commands of a case without its fix": GOOD.replace('fix = "Replace the gear."\n', ""),
    "an empty evidence": GOOD.replace('evidence = "a gear broke"', 'evidence = ""'),
}


@pytest.mark.parametrize("text", SCHEMA_REFUSES.values(), ids=SCHEMA_REFUSES.keys())
def test_a_file_the_schema_refuses_the_reader_refuses(text: str) -> None:
    assert _schema_refuses(text)
    _refusal(text)


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A package of a third party whose explanations.py reads its own explanations.toml; a name of its own
    for each test, as a file is parsed once per process."""
    name = f"acme_{tmp_path.name}"
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "explanations.py").write_text(
        textwrap.dedent(
            """
            from torchdoctor.explain import Analysis, catalogue_file

            def analyse_acme(text):
                return Analysis(evidence=("an acme analyser read it",))

            ENTRIES = catalogue_file.read(__package__, globals())
            """
        )
    )
    (package / "explanations.toml").write_text(GOOD)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    for module in (f"{name}.explanations", name):
        sys.modules.pop(module, None)


def test_a_plugin_reads_its_own_file_with_the_same_reader(plugin: str) -> None:
    entry = registry.Entry("acme", f"{plugin}.explanations:ENTRIES", "acme-explain", "1.0")
    (found,) = catalogue.load(entry)
    assert found.analyse is importlib.import_module(f"{plugin}.explanations").analyse_acme
    (explained,) = catalogue.match_here("boom: acme broke: spring", [found])["explanations"]  # type: ignore[misc]
    assert explained["evidence"] == ["an acme analyser read it"]


def test_a_plugins_broken_file_costs_its_catalogue_one_line_naming_the_file(
    plugin: str, tmp_path: Path
) -> None:
    where = tmp_path / plugin / "explanations.toml"
    where.write_text(GOOD.replace("fix = ", "fixed = ", 1))
    entry = registry.Entry("acme", f"{plugin}.explanations:ENTRIES", "acme-explain", "1.0")
    with pytest.raises(catalogue.CatalogueError) as refused:
        catalogue.load(entry)
    assert str(refused.value) == (
        f"acme-explain[acme] failed to import: CatalogueFileError: {where}: entry 'acme.broke': "
        "unknown key 'fixed' (the keys are id, title, patterns, cause, fix, symptoms, commands, check, "
        "source, analyse, case)"
    )


def test_a_file_is_parsed_once_per_process(plugin: str) -> None:
    importlib.import_module(f"{plugin}.explanations")
    parsed = catalogue_file._file(plugin, catalogue_file.FILE_NAME)
    assert catalogue_file._file(plugin, catalogue_file.FILE_NAME) is parsed


def test_an_entry_may_be_recognised_by_symptoms_alone_but_by_something() -> None:
    symptoms_only = GOOD.replace("patterns = ['acme broke: (\\w+)']", "symptoms = ['acme wobbles']")
    (entry,) = parse(symptoms_only, WHERE).entries(NAMESPACE)
    assert (entry.patterns, entry.symptoms) == ((), ("acme wobbles",))
    assert not _schema_refuses(symptoms_only)
    message = _refusal(GOOD.replace("patterns = ['acme broke: (\\w+)']\n", ""))
    assert message == f"{WHERE}: entry 'acme.broke': 'patterns' is missing"
    assert _schema_refuses(GOOD.replace("patterns = ['acme broke: (\\w+)']\n", ""))
