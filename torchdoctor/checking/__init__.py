"""Finding the checks, taking their options, running their probes and judges: one Report."""
