"""Distributed: the DDP dry run (launcher, rank program, judge) and the checks of torchdoctor cluster."""
