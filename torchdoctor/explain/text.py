"""Explanations as the lines ``torchdoctor explain`` prints."""

from __future__ import annotations

from collections.abc import Sequence

from torchdoctor.explain.model import Explanation


def format_lines(explanations: Sequence[Explanation]) -> list[str]:
    """The leading explanation in full, then one line for each other message recognised."""
    lead, others = explanations[0], explanations[1:]
    lines = [lead.title, f"  seen:  {lead.line}", f"  cause: {lead.cause}"]
    lines += [f"         {line}" for line in lead.evidence]
    lines.append(f"  fix:   {lead.fix.text}")
    lines += [f"    $ {command}" for command in lead.fix.commands]
    if lead.check_command:
        lines.append(f"  check: {lead.check_command}")
    if others:
        lines.append("")
        lines.append("also in this text:")
        lines += [f"  {other.title}: {other.line}" for other in others]
    return lines
