"""DDP under ``torchrun ... -m torchdoctor run --gpus 2``: every rank sees the same two emulated GPUs and
``init_process_group("nccl")`` runs on gloo underneath. A correct script trains on cuda:0 and cuda:1 with one
result; one that never calls set_device puts rank 1 on cuda:0, which the doctor names, and fails where a real
machine fails. The mistakes of one rank are shown by that rank alone (LOCAL_RANK=1 in a group of one), as
torchrun would start it: a process each costs a torch import."""

from __future__ import annotations

import re
import socket
import subprocess
import sys

from run_support import SCRIPTS, marked_line
from support import cli_env, slack


def torchrun(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
    command += ["-m", "torchdoctor", "run", "--gpus", "2", str(SCRIPTS / "emulated_ddp.py"), *args]
    return subprocess.run(
        command, capture_output=True, text=True, env=cli_env(OMP_NUM_THREADS="1"), timeout=slack(240)
    )


def test_ddp_on_two_emulated_gpus() -> None:
    ran = torchrun()
    assert ran.returncode == 0, ran.stderr
    # the two ranks write to one pipe: their lines may interleave, so each is found by its own words
    said = sorted(re.findall(r"rank (\d) on (cuda:\d): (-?\d+\.\d+)", ran.stdout))
    assert [(rank, device) for rank, device, _ in said] == [("0", "cuda:0"), ("1", "cuda:1")], ran.stdout
    assert len({loss for _, _, loss in said}) == 1  # the ranks stayed in step


def one_rank(*args: str) -> subprocess.CompletedProcess[str]:
    """The script as torchrun starts its rank with LOCAL_RANK=1, alone in a group of one."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    group = {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port}
    env = cli_env(OMP_NUM_THREADS="1", LOCAL_RANK="1", **group)
    command = [sys.executable, "-m", "torchdoctor", "run", "--gpus", "2", str(SCRIPTS / "emulated_ddp.py")]
    return subprocess.run([*command, *args], capture_output=True, text=True, env=env, timeout=slack(120))


def test_a_rank_without_set_device_lands_on_cuda0_and_fails_as_on_gpus() -> None:
    ran = one_rank("--forget-set-device")
    assert ran.returncode != 0
    wrapped = marked_line("emulated_ddp.py", "wrapped")
    where = f"tests/runtime/scripts/emulated_ddp.py:{wrapped}"
    assert f"LOCAL_RANK=1 put a tensor on cuda:0 at {where}" in ran.stderr
    assert "torch.cuda.set_device(1)" in ran.stderr
    assert (
        "RuntimeError: Expected all tensors to be on the same device, but got mat1 is on cuda:1, different "
        "from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)"
    ) in ran.stderr


def test_device_ids_of_another_rank_are_named_apart_from_set_device() -> None:
    # LOCAL_RANK=1 calls set_device(1) and gives DDP device_ids=[0]
    ran = one_rank("--device-ids-zero")
    assert ran.returncode != 0
    where = f"tests/runtime/scripts/emulated_ddp.py:{marked_line('emulated_ddp.py', 'wrapped')} in <module>"
    said = f"LOCAL_RANK=1 wrapped its model with device_ids=[0] at {where}, not its own GPU cuda:1"
    assert ran.stderr.count(said) == 1, ran.stderr
    assert "pass device_ids=[1]" in ran.stderr
    # set_device was called: the model is on cuda:1, and DDP copies the batch to cuda:0, as on GPUs
    assert "got mat1 is on cuda:0, different from other tensors on cuda:1" in ran.stderr
