"""What torchdoctor writes, made safe on its way out; nothing here reads foreign input or runs a check.

- ``redact``: secrets, credentials, home folders, user names, host names and GPU UUIDs in what is shared.
- ``inert``: foreign text made inert on a terminal: shown, never obeyed.
- ``streams``: the guarded stdout and stderr every line torchdoctor prints passes through.
- ``messages``, ``wording``: the one-line messages, and lists and long lines as verdicts say them.
- ``files``: a file written only over a regular file, atomically.
"""
