"""The shell completion scripts, installed as ``torchdoctor.shell``: ``python -m torchdoctor.shell`` prints
the folder that holds them (``source "$(python -m torchdoctor.shell)/torchdoctor.bash"``)."""

from pathlib import Path

FOLDER = Path(__file__).resolve().parent
