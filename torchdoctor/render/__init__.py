"""A Report rendered: the colour table, plain text, JSON, Markdown and HTML/SVG, and the sections of facts a
support ticket shows below the verdicts (``sections``)."""
