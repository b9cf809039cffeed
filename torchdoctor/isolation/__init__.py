"""The processes plugin code runs in, so that a hang, a crash or a runaway costs one process, never the run.

- ``worker``: ``python -P -m torchdoctor.isolation.worker``, one JSON request and answer per line.
- ``workerproc``: the parent's handle on a worker: deadlines, clean-up of everything it started.
- ``zygote``: a process that imported torch and nothing else, to fork fresh ranks from.
- ``served``: what the worker has served (its answer channel, its requests), read by the zygote.
- ``lifeline``: a child that must not outlive its parent.
- ``processes``: a child in a group of its own, stopped and killed whole, on POSIX and on Windows.
- ``pycommand``: the command that runs one of torchdoctor's modules in a fresh Python.
"""
