"""A catalogue written as data: the ``explanations.toml`` beside a package's ``explanations.py``, read into
:class:`Entry` objects. The module names its analysers, then reads the file in one line at its end::

    ENTRIES = catalogue_file.read(__package__, globals())

The file is a list of ``[[entry]]`` tables, one per message ``torchdoctor explain`` recognises::

    [[entry]]
    id = "cudnn.version_mismatch"
    title = "cuDNN version mismatch"
    patterns = [
        'cuDNN version incompatibility: PyTorch was compiled',
        'cuDNN version mismatch: PyTorch was compiled against',
    ]
    cause = "The process loaded another cuDNN than the one torch was built with: ..."
    fix = "Remove the other cuDNN from LD_LIBRARY_PATH (or uninstall it), or reinstall torch ..."
    commands = ['echo $LD_LIBRARY_PATH', 'python -c "import torch; print(torch.backends.cudnn.version())"']
    check = "torch.stack"
    source = "torch/backends/cudnn/__init__.py _init; tests/corpus/errors/*/cudnn.version_mismatch.json"
    analyse = "analyse_cudnn_version"

- ``id`` (required): unique in the file, no spaces; ``torchdoctor explain <id>`` shows the entry.
- ``title`` (required): the first line printed.
- ``patterns`` (required, at least one, unless the entry has ``symptoms``): regular expressions (Python's
  ``re``, matched ignoring case) that recognise the message; write them as literal strings, ``'...'``
  (``'''...'''`` where one holds a quote), so that a backslash is the expression's own.
- ``symptoms``: patterns, written alike, of the effect told in words rather than of a message (a program's
  log line "No GPU found, use CPU instead", the writer's prose), or of a message that only wraps another (a
  build's "Error building extension" after the compiler's own error): they explain a text only where no
  entry recognises a message in it. An entry with symptoms may have no ``patterns``.
- ``cause``, ``fix`` (required): what went wrong, and what to do about it.
- ``commands``: shell commands the fix suggests.
- ``check``: the id of the check that tells more (``torchdoctor check --only <check>``).
- ``source``: where the message comes from (torch's source, a note, the corpus file of its real texts).
- ``analyse``: the name of a function of the module that reads the file (``analyse(text) -> Analysis``):
  it reads figures out of the message (the whole text, its traceback frames and code lines included) and
  may give evidence and a better cause, fix or check.

An entry whose analyser tells variants of its message apart (error numbers, libraries, statuses) lists them
after its own keys, each a ``[[entry.case]]``: ``pattern`` (required, a regular expression matched ignoring
case, against the part of the text the analyser says), and what the explanation then says: ``evidence``,
``cause``, ``fix`` with its ``commands``, ``check``. The analyser gets them with
``catalogue_file.cases(__package__, "<id>")`` (:class:`Case`).

A long string spans lines as a TOML multi-line string (between three double quotes, a newline after the
opening ones), each line but the last ending in a space and a backslash: TOML leaves out the backslash, the
line break and the next line's indent. ``torchdoctor/schema/explanations.schema.json`` describes the same
format.

Anything wrong is a :class:`CatalogueFileError` of one line naming the file and the entry. A file is parsed
once per process.
"""

from __future__ import annotations

import functools
import pkgutil
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchdoctor.explain.model import Analysis, Case, Entry, check_pattern
from torchdoctor.model import Fix

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, published as tomli before it joined the standard library
    import tomli as tomllib

FILE_NAME = "explanations.toml"

_ENTRY_KEYS = (
    ("id", "title", "patterns", "cause", "fix"),
    ("symptoms", "commands", "check", "source", "analyse", "case"),
)
_CASE_KEYS = (("pattern",), ("evidence", "cause", "fix", "commands", "check"))
"""The keys of an entry and of a case: those required, the others."""
_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class CatalogueFileError(ValueError):
    """A catalogue file that cannot be read or says something wrong; ``str()`` is one line naming the file
    and the entry."""


@dataclass(frozen=True)
class _Item:
    """One checked entry of a file: the Entry's fields, the analyser's name, the cases."""

    fields: dict[str, Any]
    analyse: str | None
    cases: tuple[Case, ...]


@dataclass(frozen=True)
class CatalogueFile:
    """A parsed and checked catalogue file; ``where`` names it in errors."""

    where: str
    items: tuple[_Item, ...]

    def entries(self, namespace: Mapping[str, object]) -> tuple[Entry, ...]:
        """The entries, in the file's order, their analysers taken from ``namespace`` (a module's
        ``globals()``)."""
        module = namespace.get("__name__", "the module")
        found = []
        for item in self.items:
            analyse: Callable[[str], Analysis] | None = None
            if item.analyse is not None:
                function = namespace.get(item.analyse)
                if not callable(function):
                    raise CatalogueFileError(
                        f"{self.where}: entry '{item.fields['id']}': analyse = '{item.analyse}', which "
                        f"{module} does not define (above the line that reads this file)"
                    )
                analyse = function
            found.append(Entry(**item.fields, analyse=analyse))
        return tuple(found)

    def cases(self, entry_id: str) -> tuple[Case, ...]:
        """The ``[[entry.case]]`` tables of the entry ``entry_id``, in the file's order."""
        item = next((i for i in self.items if i.fields["id"] == entry_id), None)
        if item is None or not item.cases:
            what = "no entry" if item is None else "no [[entry.case]] in the entry"
            raise CatalogueFileError(f"{self.where}: {what} '{entry_id}'")
        return item.cases


def read(package: str, namespace: Mapping[str, object], name: str = FILE_NAME) -> tuple[Entry, ...]:
    """The entries of the file ``name`` of ``package``, their analysers taken from ``namespace``."""
    return _file(package, name).entries(namespace)


def cases(package: str, entry_id: str, name: str = FILE_NAME) -> tuple[Case, ...]:
    """The cases of the entry ``entry_id`` in the file ``name`` of ``package``."""
    return _file(package, name).cases(entry_id)


@functools.cache
def _file(package: str, name: str) -> CatalogueFile:
    where = _where(package, name)
    # pkgutil, not importlib.resources: as able to read from a zip, and a tenth of the import.
    try:
        data = pkgutil.get_data(package, name)
        if data is None:
            raise OSError("its package's loader reads no data files")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogueFileError(f"{where}: cannot be read: {exc}") from None
    return parse(text, where)


def _where(package: str, name: str) -> str:
    module = sys.modules.get(package)
    paths = list(getattr(module, "__path__", ()))
    return str(Path(paths[0]) / name) if paths else f"{package.replace('.', '/')}/{name}"


def parse(text: str, where: str) -> CatalogueFile:
    """The catalogue in ``text``, the contents of the file ``where``, checked."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueFileError(f"{where}: not TOML: {exc}") from None
    unknown = sorted(set(document) - {"entry"})
    if unknown:
        raise CatalogueFileError(f"{where}: unknown key '{unknown[0]}' (the file holds [[entry]] tables)")
    tables = document.get("entry")
    if not isinstance(tables, list) or not tables:
        raise CatalogueFileError(f"{where}: no [[entry]] tables")
    items: list[_Item] = []
    seen: set[str] = set()
    for n, table in enumerate(tables, 1):
        item = _item(table, f"{where}: entry {_label(table, n)}")
        if item.fields["id"] in seen:
            raise CatalogueFileError(f"{where}: entry '{item.fields['id']}' appears twice")
        seen.add(item.fields["id"])
        items.append(item)
    return CatalogueFile(where, tuple(items))


def _label(table: object, n: int) -> str:
    entry_id = table.get("id") if isinstance(table, dict) else None
    return f"'{entry_id}'" if isinstance(entry_id, str) and entry_id else f"{n} (no id)"


def _item(table: object, where: str) -> _Item:
    required: tuple[str, ...] = _ENTRY_KEYS[0]
    optional: tuple[str, ...] = _ENTRY_KEYS[1]
    if isinstance(table, dict) and "patterns" not in table and "symptoms" in table:
        required = tuple(key for key in required if key != "patterns")  # recognised by its symptoms alone
    values = _checked(table, (required, optional), where)
    if "analyse" in values and not _FUNCTION_NAME.fullmatch(values["analyse"]):
        raise CatalogueFileError(f"{where}: analyse = {values['analyse']!r} is not a function name")
    if re.search(r"\s", values["id"]):
        raise CatalogueFileError(f"{where}: the id {values['id']!r} has a space")
    if "case" in values and "analyse" not in values:
        raise CatalogueFileError(f"{where}: [[entry.case]] tables are for an analyser, and it has no analyse")
    for n, pattern in enumerate(values.get("patterns", ()), 1):
        _compiles(pattern, f"{where}: pattern {n}")
    for n, pattern in enumerate(values.get("symptoms", ()), 1):
        _compiles(pattern, f"{where}: symptom {n}")
    fields = {
        "id": values["id"],
        "title": values["title"],
        "patterns": tuple(values.get("patterns", ())),
        "symptoms": tuple(values.get("symptoms", ())),
        "cause": values["cause"],
        "fix": Fix(values["fix"], tuple(values.get("commands", ()))),
        "check": values.get("check"),
        "source": values.get("source", ""),
    }
    found = tuple(_case(case, f"{where}: case {n}") for n, case in enumerate(values.get("case", ()), 1))
    return _Item(fields, values.get("analyse"), found)


def _case(table: object, where: str) -> Case:
    values = _checked(table, _CASE_KEYS, where)
    _compiles(values["pattern"], f"{where}: pattern")
    fix = Fix(values["fix"], tuple(values.get("commands", ()))) if "fix" in values else None
    return Case(values["pattern"], values.get("evidence"), values.get("cause"), fix, values.get("check"))


def _checked(table: object, keys: tuple[tuple[str, ...], tuple[str, ...]], where: str) -> dict[str, Any]:
    """``table`` with every key known, every required key there, every value of its type."""
    if not isinstance(table, dict):
        raise CatalogueFileError(f"{where}: not a table")
    required, optional = keys
    for key in table:
        if key not in required + optional:
            raise CatalogueFileError(
                f"{where}: unknown key '{key}' (the keys are {', '.join(required + optional)})"
            )
    for key in required:
        if key not in table:
            raise CatalogueFileError(f"{where}: '{key}' is missing")
    for key, value in table.items():
        problem = _type_problem(key, value)
        if problem:
            raise CatalogueFileError(f"{where}: '{key}' {problem}")
    if "commands" in table and "fix" not in table:
        raise CatalogueFileError(f"{where}: 'commands' without a 'fix'")
    return table


def _type_problem(key: str, value: object) -> str | None:
    """What is wrong with ``value`` as the value of ``key``; None when nothing is."""
    if key == "case":
        return None if isinstance(value, list) and value else "is not a list of [[entry.case]] tables"
    if key in ("patterns", "symptoms", "commands"):
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            return "is not a list of non-empty strings"
        return "is empty" if key != "commands" and not value else None
    if not isinstance(value, str):
        return f"is not a string but {_toml_type(value)}"
    return "is empty" if not value and key != "source" else None


def _toml_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, Sequence):
        return "a list"
    return "a table" if isinstance(value, dict) else f"a {type(value).__name__}"


def _compiles(pattern: str, where: str) -> None:
    try:
        check_pattern(pattern)
    except re.error as exc:
        raise CatalogueFileError(f"{where} does not compile: {exc}") from None
