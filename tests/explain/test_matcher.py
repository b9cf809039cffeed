"""The matcher on whole tracebacks and logs: the line it quotes, the order of several errors, terminal
colours, source lines that are not messages, the JSON the worker sends, and the worker path's answer."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from torchdoctor.explain import Entry, Explanation, catalogue, explain
from torchdoctor.explain.matcher import MAX_LINE, prepare, quote
from torchdoctor.explain.model import any_space, required_text
from torchdoctor.model import Fix

from corpus_tools import splits

ENTRIES = catalogue.installed()


def _text(entry_id: str, split: str, n: int) -> str:
    path = splits.CORPUS / "errors" / split / f"{entry_id}.json"
    return str(json.loads(path.read_text(encoding="utf-8"))[n]["text"])


def _ids(text: str) -> list[str]:
    return [e.id for e in explain(text, ENTRIES)]


def test_a_traceback_is_quoted_at_its_error_line_not_at_the_raise_or_file_line() -> None:
    text = _text(
        "torch.not_compiled_with_cuda", "test", 0
    )  # File ..., raise AssertionError("Torch not compiled ...")
    assert 'raise AssertionError("Torch not compiled with CUDA enabled")' in text
    (lead,) = explain(text, ENTRIES)
    assert lead.line == "AssertionError: Torch not compiled with CUDA enabled"


def test_the_source_line_of_a_frame_is_never_the_message() -> None:
    # Python 2 prints the last line of the statement: the message's own text, inside the source.
    text = _text("cuda.no_driver", "dev", 4)
    assert 'http://www.nvidia.com/Download/index.aspx""")' in text
    lead = explain(text, ENTRIES)[0]
    assert lead.line == "AssertionError: Found no NVIDIA driver on your system. Please check that you"


def test_a_warning_source_line_is_not_the_message() -> None:
    text = _text("nccl.not_built", "dev", 1)
    lead = explain(text, ENTRIES)[0]
    assert "warnings.warn" not in lead.line
    assert lead.line.endswith(
        "UserWarning: Attempted to get default timeout for nccl backend, but NCCL support is not compiled"
    )


def test_an_assert_statement_above_its_assertion_error_is_the_message() -> None:
    # A bare AssertionError says nothing: the statement that failed is what the program asserted.
    frame = '  File "train.py", line 86, in define_G\n    assert(torch.cuda.is_available())\n'
    failed = prepare(frame + "AssertionError\n").searchable
    assert "assert(torch.cuda.is_available())" in failed and "train.py" not in failed
    # an assert line whose AssertionError does not follow it, and other source lines, stay blanked
    assert "assert" not in prepare(frame + "RuntimeError: CUDA error\n").searchable
    call = frame.replace("assert(", "torch.ones(")
    assert "torch.ones" not in prepare(call + "AssertionError\n").searchable


def test_rich_and_ipython_source_lines_are_blanked() -> None:
    text = _text("nccl.not_built", "test", 1)  # rich's boxed frame quotes the raise statement
    assert explain(text, ENTRIES)[0].line == "RuntimeError: Distributed package doesn't have NCCL built in"
    ipython = "---> 45 raise RuntimeError('CUDA out of memory')\n"
    assert prepare(ipython).searchable.strip() == ""


def test_several_errors_give_several_explanations_and_the_last_leads() -> None:
    text = "\n".join(
        [
            _text("numpy.unavailable", "test", 1),
            _text("cuda.forked_subprocess", "dev", 0),
            _text("cuda.out_of_memory", "dev", 4),
        ]
    )
    assert _ids(text) == ["cuda.out_of_memory", "cuda.forked_subprocess", "numpy.unavailable"]
    reordered = "\n".join([_text("cuda.out_of_memory", "dev", 4), _text("numpy.unavailable", "test", 1)])
    assert _ids(reordered) == ["numpy.unavailable", "cuda.out_of_memory"]


def test_a_lead_error_after_an_earlier_one_of_another_kind_in_one_traceback() -> None:
    text = _text("cudnn.status_error", "test", 3)  # a library that failed to load, then the cuDNN error
    assert _ids(text) == ["cudnn.status_error", "lib.cannot_open_shared_object"]


def _colour(text: str) -> str:
    """The text as a terminal prints it: every line red, some words bold, line erases, hyperlinks."""
    lines = []
    for line in text.split("\n"):
        words = line.split(" ")
        words = [f"\x1b[1m{w}\x1b[22m" if i % 3 == 0 else w for i, w in enumerate(words)]
        lines.append("\x1b(B\x1b[31m" + " ".join(words) + "\x1b[0m\x1b[K\x1b]8;;file:///x\x07\x1b]8;;\x07")
    return "\r\n".join(lines)


def _corpus() -> list[tuple[str, str]]:
    return [(f"{entry_id}-{n}", record["text"]) for entry_id, n, record in splits.error_records()]


def test_ansi_escapes_match_as_if_they_were_not_there() -> None:
    for name, text in _corpus():
        plain = explain(text, ENTRIES)
        coloured = explain(_colour(text), ENTRIES)
        assert [e.id for e in coloured] == [e.id for e in plain], name
        assert [e.line for e in coloured] == [e.line for e in plain], name
        assert [e.evidence for e in coloured] == [e.evidence for e in plain], name


def test_blanking_keeps_every_offset() -> None:
    text = _text("load.map_location", "dev", 5)
    prepared = prepare(text)
    assert len(prepared.searchable) == len(prepared.clean) == len(text)
    assert 'File "' not in prepared.searchable
    assert "RuntimeError: Attempting to deserialize object on CUDA device 1" in prepared.searchable


def test_frames_behind_a_log_prefix_are_recognised() -> None:
    text = (
        '[rank0]:   File "/x/utils.py", line 216, in barrier\n'
        "[rank0]:     raise_cuda_out_of_memory('CUDA out of memory')\n"
        "[rank0]: RuntimeError: Socket Timeout\n"
    )
    assert _ids(text) == ["dist.rendezvous_timeout"]


def test_a_long_line_is_cut_around_the_match_from_the_error_name() -> None:
    line = "2024-01-01 12:00:00 " + "x" * 200 + " RuntimeError: CUDA error: invalid device ordinal"
    assert quote(line, line.index("invalid")) == "...RuntimeError: CUDA error: invalid device ordinal"
    long = "RuntimeError: CUDA error: invalid device ordinal " + "y" * 300
    quoted = quote(long, long.index("invalid"))
    assert (
        quoted.startswith("RuntimeError: CUDA error: invalid device ordinal yyy") and len(quoted) == MAX_LINE
    )


def test_a_bare_error_name_above_the_message_is_joined_to_it() -> None:
    text = "AssertionError: \nFound no NVIDIA driver on your system. Please check that you\n"
    assert (
        quote(text, text.index("Found"))
        == "AssertionError: Found no NVIDIA driver on your system. Please check that you"
    )


def test_explanation_json_is_what_the_worker_always_sent() -> None:
    lead = explain(_text("cuda.out_of_memory", "dev", 1), ENTRIES)[0]
    data = json.loads(json.dumps(lead.to_json()))
    assert set(data) == {
        "id",
        "title",
        "matched",
        "position",
        "cause",
        "evidence",
        "fix",
        "check",
        "check_command",
    }
    assert Explanation.from_json(data) == lead


def test_the_worker_path_gives_the_in_process_answer() -> None:
    """catalogue.explain_in_worker matches each catalogue on its own and merges by position; with the worker
    call replaced by the same matching in this process, the answer must equal matching all at once."""
    from torchdoctor.checking import registry

    by_catalogue = {
        entry.value: catalogue.load(entry) for entry in registry.find_entries(registry.EXPLANATIONS)
    }

    def call(request: dict[str, Any]) -> dict[str, Any]:
        entries = by_catalogue[request["entry"]["value"]]  # type: ignore[index]
        return catalogue.match_here(str(request["text"]), entries)

    for name, text in _corpus()[::7]:
        merged = catalogue.explain_in_worker(text, call)  # type: ignore[arg-type]
        assert merged.problems == []
        assert merged.explanations == explain(text, ENTRIES), name


def test_a_symptom_gives_way_to_another_catalogues_message_on_the_worker_path_too() -> None:
    """Each catalogue is matched apart in the worker: a catalogue that found only a symptom must not lead
    over another's message, as it would not in one catalogue (the GDR-Net#16 shape: a worker's bus error,
    then "exited unexpectedly")."""
    from torchdoctor.checking import registry

    symptom = Entry("a.symptom", "A", (), "wraps", Fix("a"), symptoms=(r"exited unexpectedly",))
    message = Entry("b.message", "B", (r"bus error",), "the cause", Fix("b"))
    catalogues = {"one": [symptom], "two": [message]}

    def call(request: dict[str, Any]) -> dict[str, Any]:
        return catalogue.match_here(str(request["text"]), catalogues[request["entry"]["value"]])

    found = [registry.Entry(name, name, "test", "1.0") for name in catalogues]
    text = "killed by signal: Bus error\nworker exited unexpectedly"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(registry, "find_entries", lambda group: found)
        merged = catalogue.explain_in_worker(text, call)  # type: ignore[arg-type]
        assert [e.id for e in merged.explanations] == ["b.message"]
        alone = catalogue.explain_in_worker("worker exited unexpectedly", call)  # type: ignore[arg-type]
        assert [e.id for e in alone.explanations] == ["a.symptom"]


def test_an_analysis_that_fails_keeps_the_explanation() -> None:
    def broken(text: str) -> Any:
        raise ValueError("odd text")

    entry = Entry("x.y", "X", (r"boom",), "cause", Fix("fix"), analyse=broken)
    (found,) = explain("boom", [entry])
    assert (found.cause, found.evidence) == ("cause", ())


@pytest.mark.parametrize(
    ("pattern", "pieces"),
    [
        (r"CUDA out of memory", ("cuda out of memory",)),
        (r"Timed out after \d+ seconds waiting for clients", (" seconds waiting for clients",)),
        (r"(?:pageable|not pinned)[^\n]{0,80}non_blocking", ("non_blocking",)),
        (r"EADDRINUSE|Address already in use", ("eaddrinuse", "address already in use")),
        (r"a|\d", ()),
        (r"NCCL WARN Cuda failure(?<!shmutils\.cc:\d NCCL WARN Cuda failure)", ("nccl warn cuda failure",)),
        # an alternation every match passes through, when its shortest branch beats the longest plain run
        (r"(?:non-finite|NaN or Inf) (?:loss|found in)", ("non-finite", "nan or inf")),
        (r"(?:GPU|CPU) (?:out of memory|OOM error)", ("out of memory", "oom error")),
        (r"runs(?:ab|cd)*X", ("runs",)),  # a repeated alternation may be absent from a match
    ],
)
def test_required_text_is_what_every_match_contains(pattern: str, pieces: tuple[str, ...]) -> None:
    assert required_text(pattern) == pieces


def test_every_catalogue_pattern_matches_only_texts_that_hold_its_required_text() -> None:
    texts = [text for _, text in _corpus()]
    for entry in ENTRIES:
        patterns = (*entry.compiled, *entry.compiled_symptoms)
        pairs = zip(patterns, (*entry.required, *entry.required_symptoms), strict=True)
        for pattern, pieces in pairs:
            for text in texts:
                if pieces and pattern.search(text):
                    assert any(piece in text.casefold() for piece in pieces), (entry.id, pattern.pattern)


def test_an_entry_is_passed_over_only_where_none_of_its_required_text_occurs() -> None:
    # explain looks for each piece of required text once per text and skips an entry none of whose pieces
    # occurs; an entry with a pattern that requires no text is never skipped.
    guarded = Entry(
        "a.guarded", "A", (r"bus error: \d+",), "c", Fix("a"), symptoms=(r"worker (?:died|hung)",)
    )
    unguarded = Entry("b.unguarded", "B", (r"oom|\d{3}",), "c", Fix("b"))  # no text every match holds
    for text, ids in (
        ("bus error: 7", ["a.guarded"]),
        ("a worker hung", ["a.guarded"]),
        ("404 errors", ["b.unguarded"]),
        ("nothing here", []),
    ):
        occurs: dict[str, bool] = {}
        folded = text.casefold()
        assert unguarded.may_match(folded, occurs)
        assert guarded.may_match(folded, occurs) == (ids == ["a.guarded"]), text
        assert [e.id for e in explain(text, [guarded, unguarded])] == ids


def test_one_text_after_another_is_each_matched_as_itself() -> None:
    # The worker keeps the last text it prepared: a different text must never be matched as that one.
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    ordinal = "RuntimeError: CUDA error: invalid device ordinal"
    first, second, again = explain(oom, ENTRIES), explain(ordinal, ENTRIES), explain(oom, ENTRIES)
    assert first == again and [e.line for e in first] != [e.line for e in second]
    assert [e.line for e in second] == [ordinal]


def test_unicode_case_folding_does_not_shift_the_match() -> None:
    text = "Straße ß İstanbul\nRuntimeError: CUDA error: invalid device ordinal"
    (found,) = explain(text, ENTRIES)
    assert found.line == "RuntimeError: CUDA error: invalid device ordinal"
    assert re.search("invalid device ordinal", text[found.position :])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity) "
            'File "a", line 1',
            "cuda.out_of_memory",
        ),
        (
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. [rank0]: Traceback "
            '(most recent call last): File "train.py", line 12, in <module>',
            "cuda.out_of_memory",
        ),
        (
            "RuntimeError: CUDA error: invalid device ordinal "
            'File "/opt/job/train.py", line 40, in main    model.to(device)',
            "cuda.invalid_device_ordinal",
        ),
        (
            "[Bug] CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity) when "
            "fine-tuning with batch 64",
            "cuda.out_of_memory",
        ),
    ],
    ids=["frame after", "flattened rank log", "ordinal then frame and code", "issue title"],
)
def test_a_message_followed_on_its_line_by_a_frame_or_anything_else_is_recognised(
    text: str, expected: str
) -> None:
    """Only the frame and what follows it on the line are code: the message before it is still read."""
    assert _ids(text)[0] == expected


def test_symptoms_explain_a_text_only_where_no_message_is_recognised() -> None:
    failed = Entry("init.failed", "Init", (r"CUDA initialization: \w+",), "cause", Fix("fix"))
    fallback = Entry(
        "no.gpu",
        "No GPU",
        (r"is_available\(\) is False",),
        "cause",
        Fix("fix"),
        symptoms=(r"use CPU instead",),
    )
    text = "UserWarning: CUDA initialization: failed\nNo GPU found, use CPU instead"
    assert [e.id for e in explain(text, [fallback, failed])] == ["init.failed"]
    # alone, the symptom explains the text, and it quotes its line
    alone = explain("No GPU found, use CPU instead\nAssertionError", [fallback, failed])
    assert [e.id for e in alone] == ["no.gpu"] and alone[0].line == "No GPU found, use CPU instead"
    # found by a message, the entry takes its place by that message
    later = text + "\ntorch.cuda.is_available() is False"
    assert [e.id for e in explain(later, [fallback, failed])] == ["no.gpu", "init.failed"]


def test_a_pattern_is_compiled_when_a_text_first_holds_its_required_text() -> None:
    entry = Entry("a.gear", "A", (r"gear (\d+) slipped", r"belt snapped"), "the cause", Fix("a"))
    assert entry._compiled == {}  # nothing compiled when the catalogue is read
    assert entry.last_match("the motor hums") is None and entry._compiled == {}
    found = entry.last_match("gear 3 slipped")
    assert found is not None and found[1] == "3"
    assert [p.pattern for p in entry._compiled.values()] == [any_space(r"gear (\d+) slipped")]
    # a pattern that does not compile is refused when the entry is made, not when it first runs
    with pytest.raises(re.error):
        Entry("b.broken", "B", (r"gear (\d+",), "the cause", Fix("b"))
