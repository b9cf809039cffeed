"""Foreign material read with bounds: files, saved reports, collect_env dumps, Markdown reports."""
