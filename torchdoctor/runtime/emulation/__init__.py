"""``torchdoctor run --gpus N``: N CUDA devices emulated on the CPU, with real values.

Every tensor is a CPU tensor; the emulated device of each is kept beside it, never on it.

- ``devices``: the emulated machine (how many GPUs, the current one) and the table of each tensor's device
- ``messages``: the texts torch and CUDA raise, made for the emulated devices
- ``placement``: the two modes: torch functions (device properties, factories, moves) and aten operations
  (placement checks, results placed like their operands, gradients and optimizer state included)
- ``cuda_api``: the ``torch.cuda``, ``torch.accelerator``, ``torch.backends.cudnn`` and autocast surface
- ``checkpoints``: ``torch.save`` records the emulated location, ``torch.load`` restores it
- ``distributed``: process groups asked for NCCL run on gloo
- ``edges``: what cannot be emulated, said or refused where it is met
- ``emulator``: the whole, installed into torch and taken out again
"""
