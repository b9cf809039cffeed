"""The command that runs one of torchdoctor's modules in a fresh Python, as ``python -P -m MODULE`` does: the
installed module, never a folder of that name in the current directory. Python 3.10 has no ``-P``: there the
current directory is taken off the path by hand before the module runs."""

from __future__ import annotations

import sys


def run_module(python: str, module: str) -> list[str]:
    """``[python, "-P", "-m", module]``, or its equivalent where ``python`` is this Python and it is 3.10."""
    if python == sys.executable and sys.version_info < (3, 11):
        code = (
            "import runpy, sys\n"
            "if sys.path[:1] == ['']:\n"
            "    del sys.path[0]\n"
            f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n"
        )
        return [python, "-c", code]
    return [python, "-P", "-m", module]
