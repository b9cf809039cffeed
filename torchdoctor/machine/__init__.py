"""Facts about this machine, read without torch: the host, the system, NVML, the environment, packages."""
