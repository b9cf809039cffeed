"""The report as the colour table a terminal shows, exported by rich as HTML or as an SVG picture.

For people who would rather look than read: the verdict table with every check's evidence, then the
facts behind it as small tables. Both formats come from one recorded rich console.
"""

from __future__ import annotations

import html
import io
import re

from rich.console import Console
from rich.table import Table
from rich.text import Text

from torchdoctor.model import Report
from torchdoctor.render import sections, table

WIDTH = 120
MAX_WIDTH = 240
TITLE = "torchdoctor report"


def _recorded(report: Report) -> Console:
    sink = io.StringIO()  # recorded, never read: the export comes from the console's record
    console = Console(
        file=sink,
        record=True,
        # Wide enough for the longest word (a docs URL, a path): the picture never cuts one.
        width=min(max(WIDTH, table.layout_width(report, verbose=True)), MAX_WIDTH),
        force_terminal=True,
        color_system="truecolor",
        highlight=False,
        soft_wrap=False,
    )
    table.render(report, sink, verbose=True, console=console)
    if report.extra.get("redacted"):
        console.print(
            Text(
                "redacted: secrets, credentials in URLs, home directory (~), user name and hostname "
                "replaced, GPU UUIDs shortened",
                style="dim italic",
            )
        )
    for section in sections.sections(report.to_json()):
        console.print()
        console.print(_section_table(section))
    return console


def _section_table(section: sections.Section) -> Table:
    pairs = section.columns == ("name", "value")
    facts = Table(
        title=section.title,
        title_justify="left",
        title_style="bold",
        show_header=not pairs,
        header_style="bold",
        box=None,
        pad_edge=False,
        min_width=len(section.title),
    )
    for index, column in enumerate(section.columns):
        facts.add_column(column, style="cyan" if index == 0 else None, overflow="fold")
    for row in section.rows:
        facts.add_row(*row)
    return facts


# rich's own page, with a title; every style inline, nothing loaded from anywhere.
_HTML_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<title>{title}</title>
<style>
{{stylesheet}}
body {{{{
    color: {{foreground}};
    background-color: {{background}};
}}}}
</style>
</head>
<body>
    <pre style="font-family:Menlo,'DejaVu Sans Mono',consolas,monospace"><code>{{code}}</code></pre>
</body>
</html>
"""
# rich's SVG loads the Fira Code web font from a CDN; a report is self-contained, so local fonts only.
_FONT_FACE = re.compile(r"@font-face\s*\{[^}]*\}\s*")


def render_html(report: Report) -> str:
    page = _HTML_PAGE.format(title=html.escape(_title(report)))
    return _recorded(report).export_html(inline_styles=True, code_format=page)


def render_svg(report: Report) -> str:
    return _FONT_FACE.sub("", _recorded(report).export_svg(title=_title(report)))


def _title(report: Report) -> str:
    host = report.host.get("hostname") or "unknown host"
    return f"{TITLE}: {host}, {report.created_at}"
