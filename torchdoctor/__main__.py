"""``python -m torchdoctor``, also as torchrun runs it (``torchrun ... -m torchdoctor cluster``).

Run from a source checkout after ``pip install .``, ``-m`` imports the ``torchdoctor/`` folder of the current
directory, not the installed package, and that folder lacks the built-in checks (they are the top-level
``checks/`` folder, installed as ``torchdoctor.checks``). Then this runs the installed torchdoctor instead,
the way ``python -P`` would have.
"""

import importlib.metadata
import importlib.util
import os
import sys


def _shadowed() -> bool:
    """This torchdoctor is a source folder without its checks, found because the current directory comes
    first on the path, while an installed torchdoctor exists."""
    if getattr(sys.flags, "safe_path", False) or importlib.util.find_spec("torchdoctor.checks") is not None:
        return False
    try:
        importlib.metadata.distribution("torchdoctor")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


if __name__ == "__main__":
    if _shadowed():
        from torchdoctor.isolation import pycommand

        os.execv(sys.executable, [*pycommand.run_module(sys.executable, "torchdoctor"), *sys.argv[1:]])
    from torchdoctor.cli import main

    main()
