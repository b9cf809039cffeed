"""The colour table and its HTML/SVG exports: lines break at spaces, never inside a path or a URL."""

from __future__ import annotations

import io

from rich.console import Console

from torchdoctor.model import Fix, Report, Status, Verdict
from torchdoctor.render import html, table

URL = "https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf"
PATH = "/work/main/.venv/lib/python3.11/site-packages/torch/lib/libgomp-a34b3233.so.1"


def report() -> Report:
    verdict = Verdict(
        "gpu.fragmentation",
        "GPU allocator fragmentation",
        Status.FAIL,
        "max_split_size_mb:abc is not a whole number (torch raises at the first CUDA allocation)",
        (f"loaded from {PATH} by the worker",),
        Fix(f"Correct max_split_size_mb in PYTORCH_CUDA_ALLOC_CONF; the options are listed at {URL}"),
    )
    host = {"os": "Debian GNU/Linux 12 (bookworm)", "machine": "x86_64", "python": "3.11.7"}
    return Report("0.1.0", "2026-11-30T11:32:16Z", host, {}, {}, [verdict], {"total_s": 1.0, "probes": {}})


def test_wrap_breaks_at_spaces_only() -> None:
    lines = table.wrap(f"the options are listed at {URL} for you", 40)
    assert URL in lines and all(len(line) <= 40 for line in lines if line != URL)
    assert " ".join(lines) == f"the options are listed at {URL} for you"


def test_the_80_column_table_keeps_paths_and_urls_whole() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=False, color_system=None, highlight=False)
    table.render(report(), out, console=console)
    text = out.getvalue()
    assert URL in text and PATH in text
    assert max(len(line) for line in text.splitlines() if URL not in line and PATH not in line) <= 80


def test_html_and_svg_show_the_docs_url_whole() -> None:
    assert URL in html.render_html(report())
    svg = html.render_svg(report())
    assert URL.replace("&", "&amp;") in svg.replace("&#160;", " ")
