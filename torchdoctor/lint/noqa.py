"""``# noqa`` and ``# noqa: TDL001,TDL004`` comments on a reported line, read the way flake8 reads them
(codes match by prefix), except that ``#noqa`` without a space counts too."""

from __future__ import annotations

import re

from torchdoctor.lint.findings import Finding

_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)


def suppressed(finding: Finding, line_text: str) -> bool:
    match = _NOQA.search(line_text)
    if match is None:
        return False
    codes = match.group("codes")
    if not codes:
        return True
    return finding.rule.startswith(tuple(code.upper() for code in _CODE.findall(codes)))


def without_noqa(findings: list[Finding], source: str) -> list[Finding]:
    if not findings or "noqa" not in source.lower():
        return findings
    lines = source.splitlines()
    return [
        finding
        for finding in findings
        if not (0 < finding.line <= len(lines) and suppressed(finding, lines[finding.line - 1]))
    ]
