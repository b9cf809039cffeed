"""Probes more than one area needs: the torch build and what the CUDA driver exposes."""
