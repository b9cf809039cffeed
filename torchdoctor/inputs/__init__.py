"""Foreign material read with bounds: regular files only, a size cap, linear-time parsing.

- ``bounded``: files, stdin and JSON read with those bounds, and the one-line reasons for a refusal.
- ``saved``: a saved JSON report, whole or inside a Markdown fence of an issue.
- ``collect_env``: a ``python -m torch.utils.collect_env`` dump found in any text, as a saved report.
- ``nvidia_smi``: nvidia-smi output found in any text, as a saved report.
- ``foreign``: the saved report those two readers make of the facts a text gives.
- ``markdown_reader``: a Markdown report (``torchdoctor report``) pasted into an issue.
"""
