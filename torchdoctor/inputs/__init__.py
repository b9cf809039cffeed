"""Foreign material read with bounds: regular files only, a size cap, linear-time parsing.

- ``bounded``: files, stdin and JSON read with those bounds, and the one-line reasons for a refusal.
- ``saved``: a saved JSON report, whole or inside a Markdown fence of an issue.
- ``collect_env``: a ``python -m torch.utils.collect_env`` dump found in any text, as a saved report.
- ``nvidia_smi``: nvidia-smi output found in any text, as a saved report.
- ``nvidia_smi_csv``: ``nvidia-smi --query-gpu`` and ``--query-compute-apps`` CSV in any text, as a report.
- ``memory_summary``: ``torch.cuda.memory_summary()`` tables found in any text, as allocator facts.
- ``nvidia_topo``: an ``nvidia-smi topo -m`` matrix found in any text, as topology facts.
- ``foreign``: the saved report those readers make of the facts a text gives, and nvidia-smi's GPU facts.
- ``markdown_reader``: a Markdown report (``torchdoctor report``) pasted into an issue.
"""
