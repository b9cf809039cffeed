"""The command line's commands, one module each, registered by :mod:`torchdoctor.cli`; with what they share
(``common``, ``values``, ``usage``), the live progress line (``progress``) and the shell completion scripts
(``completions``)."""
