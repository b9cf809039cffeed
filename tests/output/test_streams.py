"""What torchdoctor prints passes through one guard: redacted, then inert, a line at a time."""

from __future__ import annotations

import io
import socket
import sys

import pytest

from torchdoctor.output import streams
from torchdoctor.output.redact import PSEUDONYM, REDACTED
from torchdoctor.output.streams import GuardedStream

HF_TOKEN = "hf_" + "P" * 34


def written(*pieces: str, redact: bool = True) -> str:
    sink = io.StringIO()
    with streams.guarded(redact=redact):
        stream = GuardedStream(sink)
        for piece in pieces:
            stream.write(piece)
        stream.flush()
    return sink.getvalue()


def test_crlf_line_ends_pass_whole_even_written_in_pieces() -> None:
    assert written("-x.cuda()\r", "\n+x = x.cuda()\r\n", redact=False) == "-x.cuda()\r\n+x = x.cuda()\r\n"
    assert written("over\rwrite\n", redact=False) == "over\\u000dwrite\n"


def test_a_secret_written_in_pieces_is_seen_whole() -> None:
    text = written("cloned with ", HF_TOKEN[:10], HF_TOKEN[10:], " at https://bob:", "pw@host/x\n")
    assert text == f"cloned with {REDACTED} at https://host/x\n"


def test_an_armored_block_is_dropped_from_its_begin_line_to_its_end_line() -> None:
    text = written(
        "key: -----BEGIN OPENSSH PRIVATE KEY-----\n",
        "b3BlbnNzaC1rZXktdjE=\n",
        "AAAAB3NzaC1yc2E=\n",
        "-----END OPENSSH PRIVATE KEY----- done\n",
        "next line\n",
    )
    assert "b3Blbn" not in text and "AAAAB3" not in text
    assert text.splitlines()[0] == f"key: {REDACTED}" and text.endswith(" done\nnext line\n")


def test_the_hostname_becomes_a_pseudonym_and_escapes_become_visible() -> None:
    host = socket.gethostname()
    text = written(f"\x1b]0;title\x07 on {host}\n")
    assert "\x1b" not in text and "\\u001b]0;title\\u0007" in text
    if len(host) >= 2 and host != "localhost":
        assert host not in text and PSEUDONYM.search(text)


def test_no_redact_keeps_identities_and_still_strips_credentials() -> None:
    host = socket.gethostname()
    sink = io.StringIO()
    with streams.guarded():
        streams.keep_identities()
        stream = GuardedStream(sink)
        stream.write(f"{host} token={HF_TOKEN}\n")
        stream.flush()
    assert sink.getvalue() == f"{host} token={REDACTED}\n"


def test_other_hosts_named_by_the_command_get_pseudonyms_of_their_own() -> None:
    sink = io.StringIO()
    with streams.guarded():
        streams.hide_hostnames(["node-a.example.com", "node-b"])
        stream = GuardedStream(sink)
        stream.write("works on node-a, not on node-b\n")
        stream.flush()
    first, second = PSEUDONYM.findall(sink.getvalue())
    assert first != second and "node-" not in sink.getvalue()


def test_lint_output_is_inert_but_not_redacted() -> None:
    text = written(f"/home/x/{HF_TOKEN}.py:1:1 \x1b[2J\n", redact=False)
    assert text == f"/home/x/{HF_TOKEN}.py:1:1 \\u001b[2J\n"


def test_a_stream_that_cannot_encode_a_character_gets_its_escape() -> None:
    raw = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    with streams.guarded():
        stream = GuardedStream(raw)
        stream.write("✓ pass\n")
        stream.flush()
    raw.seek(0)
    assert raw.buffer.getvalue() == b"\\u2713 pass\n"  # type: ignore[attr-defined]


def test_the_guard_replaces_both_streams_and_puts_them_back(capsys: pytest.CaptureFixture[str]) -> None:
    before = sys.stdout, sys.stderr
    with streams.guarded():
        assert isinstance(sys.stdout, GuardedStream) and isinstance(sys.stderr, GuardedStream)
        assert streams.unguarded(sys.stdout) is before[0]
        print("a\x07b")
        sys.stderr.write("partial line without an end")
    assert (sys.stdout, sys.stderr) == before
    captured = capsys.readouterr()
    assert captured.out == "a\\u0007b\n" and captured.err == "partial line without an end"
