"""Facts about this machine, read without importing torch: each a probe or a reader the probes share.

- ``host``: the host summary every report starts with (read in the CLI process).
- ``sysinfo``: the CPU, the C library, the compilers and CUDA toolkit on the PATH, conda packages.
- ``nvml``: the one door to NVML (``pynvml``): GPUs, memory, processes, links, as plain data.
- ``envvars``: the environment variables that shape a PyTorch run, secrets never recorded.
- ``packages``, ``distributions``: the installed torch stack, from the distributions' metadata.
"""
