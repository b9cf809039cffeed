"""The processes that run plugin code: the probe worker, its handle, the zygote, lifelines."""
