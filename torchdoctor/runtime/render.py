"""The block ``torchdoctor run`` writes on stderr: marked at both ends, so that it stands apart from the
program's own output and ``explain``/``triage`` find it in a pasted log. No torch here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from torchdoctor.output.inert import shown
from torchdoctor.runtime.model import Finding, Operand, RunReport, TransferSite, site_text

WIDTH = 78
OPENING = "== torchdoctor run"
CLOSING = "== end of torchdoctor run"


def _rule(text: str) -> str:
    return f"{text} ".ljust(WIDTH, "=")


def block(lines: Sequence[str], rank: int | None = None) -> str:
    """``lines`` between the opening and closing marks, every line inert on a terminal."""
    who = f" [rank {rank}]" if rank is not None else ""
    body = [shown(line) for line in lines]
    return "\n".join([_rule(f"{OPENING}{who}"), *body, _rule(f"{CLOSING}{who}")]) + "\n"


def finding_lines(finding: Finding) -> list[str]:
    lines = [finding.summary]
    for operand in finding.operands:
        lines += operand_lines(operand)
    lines += [f"  {line}" for line in finding.evidence]
    if finding.fix:
        lines.append(f"  fix: {finding.fix}")
    return lines


def operand_lines(operand: Operand) -> list[str]:
    facts = [part for part in (operand.device, operand.dtype) if part]
    if operand.shape is not None:
        facts.append(f"shape {tuple(operand.shape)}")
    described = ", ".join(facts) if facts else "device not known"
    lead = f"  {operand.expression}: {described}"
    if operand.odd:
        lead += "   <- on another device"
    return [lead, *(f"      {note}" for note in operand.notes)]


def transfer_line(transfer: TransferSite) -> str:
    arrow = "host->device" if transfer.direction == "host_to_device" else "device->host"
    memory = []
    if transfer.pinned:
        memory.append(f"{transfer.pinned} from pinned memory")
    if transfer.pageable:
        memory.append(f"{transfer.pageable} from pageable memory")
    if transfer.non_blocking:
        memory.append(f"{transfer.non_blocking} non_blocking")
    extra = f" ({', '.join(memory)})" if memory else ""
    return (
        f"  {site_text(transfer.site)}: {arrow} {transfer.count} copies, {size_text(transfer.bytes)}{extra}"
    )


def size_text(n: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def summary_lines(report: RunReport, findings: Iterable[Finding]) -> list[str]:
    """What the run found, the transfers and the synchronisations, as the closing block says it."""
    lines: list[str] = []
    for finding in findings:
        if lines:
            lines.append("")
        lines += finding_lines(finding)
    if report.transfers:
        if lines:
            lines.append("")
        lines.append("host<->device copies, by line:")
        lines += [transfer_line(t) for t in report.transfers]
    if report.syncs:
        if lines:
            lines.append("")
        lines.append("implicit synchronisations with the GPU, by line:")
        for sync in report.syncs:
            calls = ", ".join(f"{count} x {name}" for name, count in sorted(sync.calls.items()))
            lines.append(f"  {site_text(sync.site)}: {calls}")
    return lines
