"""``# noqa`` and ``# noqa: TDL001,TDL004`` comments on a reported line, read the way flake8 reads them
(codes match by prefix), except that ``#noqa`` without a space counts too.

Lines are counted as Python's tokenizer counts them, so that the line of a finding is the line of its
comment: only ``\\n``, ``\\r\\n`` and ``\\r`` end a line (a form feed, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028
and U+2029 do not, although ``str.splitlines`` breaks at them), and bytes are decoded with the file's own
encoding.
"""

from __future__ import annotations

import io
import re
import tokenize

from torchdoctor.lint.findings import Finding

_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)
_LINE_END = re.compile(r"\r\n|\r|\n")


def suppressed(finding: Finding, line_text: str) -> bool:
    match = _NOQA.search(line_text)
    if match is None:
        return False
    codes = match.group("codes")
    if not codes:
        return True
    return finding.rule.startswith(tuple(code.upper() for code in _CODE.findall(codes)))


def source_lines(source: str | bytes) -> list[str]:
    """The physical lines of a source file, numbered from 0 as the tokenizer numbers them from 1."""
    return _LINE_END.split(decode(source))


def decode(source: str | bytes) -> str:
    """The text of a source file: its declared encoding (PEP 263) or UTF-8, undecodable bytes replaced."""
    if isinstance(source, str):
        return source
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        return source.decode(encoding, errors="replace")
    except LookupError:
        return source.decode("utf-8", errors="replace")


def without_noqa(findings: list[Finding], source: str | bytes) -> list[Finding]:
    if not findings:
        return findings
    text = decode(source)
    if "noqa" not in text.lower():
        return findings
    lines = source_lines(text)
    return [
        finding
        for finding in findings
        if not (0 < finding.line <= len(lines) and suppressed(finding, lines[finding.line - 1]))
    ]
