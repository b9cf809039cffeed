"""Devices: CUDA_VISIBLE_DEVICES and which GPUs a job started here gets."""
