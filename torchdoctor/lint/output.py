"""The four output formats: text (flake8-like), json, github (workflow commands), sarif (2.1.0)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from importlib import metadata
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from torchdoctor.lint.display import inert, shown
from torchdoctor.lint.findings import Finding, fill
from torchdoctor.lint.rules import RULES, Level, Rule

FORMATS = ("text", "json", "github", "sarif")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render(findings: Sequence[Finding], output_format: str, show_fixes: bool = False) -> str:
    """The whole output, ending with a newline (empty text when there are no findings)."""
    if output_format == "json":
        return json.dumps([as_json(finding) for finding in findings], indent=2) + "\n"
    if output_format == "sarif":
        return json.dumps(as_sarif(findings), indent=2) + "\n"
    if output_format == "github":
        return "".join(as_github(finding) + "\n" for finding in findings)
    return "".join(as_text(finding, show_fixes) for finding in findings)


def as_text(finding: Finding, show_fixes: bool) -> str:
    line = f"{shown(finding.path)}:{finding.line}:{finding.col}: {finding.rule} {inert(finding.message)}\n"
    if show_fixes:
        line += f"    fix: {inert(finding.fix)}\n"
        if finding.explain:
            line += f"    see: torchdoctor explain {finding.explain}\n"
    return line


def as_json(finding: Finding) -> dict[str, Any]:
    return {
        "path": finding.path,
        "line": finding.line,
        "col": finding.col,
        "end_line": finding.end_line,
        "rule": finding.rule,
        "level": finding.level,
        "message": finding.message,
        "fix": finding.fix,
        "explain": finding.explain,
    }


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


# GitHub's annotation commands by level: an error, a warning, a notice.
_GITHUB_COMMANDS: dict[Level, str] = {"error": "error", "warning": "warning", "note": "notice"}


def as_github(finding: Finding) -> str:
    """A GitHub Actions workflow command (``::error``, ``::warning``, ``::notice``): an annotation on the
    line of the pull request."""
    command = _GITHUB_COMMANDS[finding.level]
    return (
        f"::{command} file={_escape_property(shown(finding.path))},line={finding.line},col={finding.col},"
        f"title={_escape_property(finding.rule)}::{_escape_data(inert(finding.message))}"
    )


def _version() -> str:
    try:
        return metadata.version("torchdoctor")
    except metadata.PackageNotFoundError:
        return "0"


def _sarif_rule(rule: Rule) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": fill(rule.message)},
        "help": {"text": f"Fix: {fill(rule.fix)}"},
        "defaultConfiguration": {"level": rule.level, "enabled": rule.default},
        "properties": {"tags": ["pytorch", "device"]},
    }
    if rule.explain:
        entry["help"]["text"] += f"\nSee: torchdoctor explain {rule.explain}"
        entry["properties"]["explain"] = rule.explain
    return entry


def _uri(path: str) -> str:
    """A URI reference for SARIF: a file: URI for an absolute path, else a relative reference; every byte
    outside the unreserved set percent-encoded (a ``:`` in the first segment would read as a scheme)."""
    posix = PurePath(path).as_posix()
    encoded = quote(os.fsencode(posix), safe="/")
    return f"file://{encoded}" if os.path.isabs(path) else encoded


def as_sarif(findings: Sequence[Finding]) -> dict[str, Any]:
    index = {rule.id: position for position, rule in enumerate(RULES)}
    results = []
    for finding in findings:
        result: dict[str, Any] = {
            "ruleId": finding.rule,
            "ruleIndex": index[finding.rule],
            "level": finding.level,
            "message": {"text": finding.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(finding.path)},
                        "region": {
                            "startLine": finding.line,
                            "startColumn": finding.col,
                            "endLine": finding.end_line,
                            "endColumn": finding.end_col,
                        },
                    }
                }
            ],
            "properties": {"fix": finding.fix},
        }
        if finding.explain:
            result["properties"]["explain"] = finding.explain
        results.append(result)
    driver = {
        "name": "torchdoctor-lint",
        "version": _version(),
        "informationUri": "https://pypi.org/project/torchdoctor/",
        "rules": [_sarif_rule(rule) for rule in RULES],
    }
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }
