"""Error messages of a device that is not there: no GPU at all, device ordinals, GPU checkpoints without
that GPU, pinning without an accelerator.

The entries are the data of explanations.toml beside this module (:mod:`torchdoctor.explain.catalogue_file`),
registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, the
research notes (research/ddp_dryrun.md 3, research/cuda_semantics.md), and the real texts of
tests/corpus/errors. This module holds their analyser.
"""

from __future__ import annotations

import re
from itertools import islice

from torchdoctor.checks.devices import cvd
from torchdoctor.checks.training.explanations import asked_for_cpu
from torchdoctor.explain import Analysis, Entry, catalogue_file
from torchdoctor.explain.cpu_path import cpu_path
from torchdoctor.explain.model import last_match, quoted
from torchdoctor.model import Fix

_ORDINAL = re.compile(r"device(?:_index)?=(\d+), num_gpus=(\d*)")
# What the pasted command or log says of the devices: the last CUDA_VISIBLE_DEVICES it sets, torchrun's
# ranks per node, and the device indices the code names.
_CVD = re.compile(r"CUDA_VISIBLE_DEVICES['\"]?\]?\s*=\s*['\"]?([0-9A-Za-z,:\-]{0,200})")
_NPROC = re.compile(r"--nproc[_-]per[_-]node(?:=|\s+)(\d{1,4})\b")
_NAMED = re.compile(
    r"\bcuda:(\d{1,4})\b|\.cuda\((\d{1,4})\)|set_device\((\d{1,4})\)"
    r"|\bgpu[ _-]?(?:idx|id|index)s?[ =:]{1,3}(\d{1,4})\b|--(?:gpus?|gpu_ids|device)[ =](\d{1,4})\b",
    re.IGNORECASE,
)


# The GPUs a command line asks for as a list: "--device-id 0 1", "--gpu_ids 0,1" (a full-width comma from an
# input method too), "-gpus 6,7", "--cuda_devices 0 1 2 3": the option as written, and the indices.
_GPU_LIST = re.compile(
    r"(?<![\w-])--?(?:gpus?|gpu[_-]?ids?|device[_-]?ids?|devices|cuda[_-]devices)(?:=|\s{1,3})['\"]?"
    r"(\d{1,2}(?:\s{0,2}[,，]\s{0,2}\d{1,2}|\s{1,2}\d{1,2}\b){1,15})",
    re.IGNORECASE,
)

# The same list written in code or a config: "device_ids=[0,1,2,3]", "TRAIN_DEVICES = [0,1]",
# "GPUS: (0,1,2,3)".
_GPU_LIST_IN_CODE = re.compile(
    r"\b(?:device_ids|\w{0,20}DEVICES|GPUS|gpu_ids)\s{0,3}[=:]\s{0,3}[\[(]\s{0,2}"
    r"(\d{1,2}(?:\s{0,2},\s{0,2}\d{1,2}){1,15})\s{0,2},?\s{0,2}[\])]",
)

_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "a single": 1, "single": 1, "only one": 1}
# "I have one GPU", "I only have 1 GPU", "I use 3 GPUs", "only 1 gpu", "I have just 1 GPU card (RTX4090)",
# "a single card 4090": how many GPUs the writer says the machine has, and the words with the card's model
# where they name it.
_STATED = re.compile(
    r"(?:\b(?:I (?:only |just )?have|I use|I am using|I'm using|with|only|machine has|there is|there are)\s+"
    r"(?:only\s+|just\s+)?(\d{1,2}|one|two|three|four|a single|single)|\b(a single|single))\s+"
    r"(?:\w+\s+)?(?:GPUs?|cards?|graphics cards?)\b"
    r"(?:\s{0,2}\(?(?:(?:NVIDIA|GeForce|RTX|GTX|Tesla|Quadro)\s?){0,2}[A-Z]?\d{3,4}(?:\s?Ti)?[A-Za-z]{0,3}\)?)?",
    re.IGNORECASE,
)


def _gpus(count: int) -> str:
    return f"{count} GPU" if count == 1 else f"{count} GPUs"


# A process that takes its GPU by its local rank (torchrun's LOCAL_RANK, the --local_rank of
# torch.distributed.launch): the frame or code line of the call that failed.
_BY_LOCAL_RANK = re.compile(
    r"set_device\(\s{0,3}(?:\w{1,20}\.)?local_rank\b|set_device\(\s{0,3}int\(os\.environ\[['\"]LOCAL_RANK"
    r"|cuda:\{(?:\w{1,20}\.)?local_rank\}|cuda[\"']?,\s{0,3}(?:\w{1,20}\.)?local_rank\b",
    re.IGNORECASE,
)
_LAUNCHER_OPTIONS = (
    "torchrun's or torch.distributed.launch's --nproc_per_node, or the script's own --world_size, --gpus or "
    "--ngpus option"
)


def _stated_gpus(text: str) -> tuple[int, str] | None:
    """How many GPUs the writer says the machine has, and their words."""
    found = last_match(_STATED, text[-200_000:])
    if found is None:
        return None
    word = (found[1] or found[2]).lower()
    count = int(word) if word.isdigit() else _NUMBERS.get(word)
    return None if count is None else (count, " ".join(found[0].split()))


# The processes a launcher starts on one node: torchrun's --nproc_per_node (_NPROC), accelerate's
# --num_processes or its log line "Num processes: 4".
_PER_NODE = re.compile(
    _NPROC.pattern + r"|--num[_-]processes(?:=|\s+)(\d{1,4})\b|^[ \t]{0,8}Num processes: (\d{1,4})[ \t]*$",
    re.MULTILINE,
)


def ranks_against_gpus(text: str) -> Analysis | None:
    """The ranks a launcher starts on this node against the GPUs the text shows (a CUDA_VISIBLE_DEVICES list,
    the writer's count): more ranks than GPUs is the cause, since NCCL needs a GPU of its own for each rank;
    with no GPU count, the ranks alone as evidence. None where the text shows no launcher's ranks."""
    window = text[-200_000:]
    started = last_match(_PER_NODE, window)
    if started is None:
        return None
    per_node = int(next(group for group in started.groups() if group))
    said = " ".join(started[0].split())
    setting = last_match(_CVD, window)
    visible = cvd.parse(setting[1]).items if setting is not None and setting[1] else ()
    stated = _stated_gpus(window)
    count = len(visible) or (stated[0] if stated is not None else None)
    line = f"{per_node} ranks per node ({said})"
    if count is None or per_node <= count:
        return Analysis(evidence=(f"{line}: NCCL needs {_gpus(per_node)} on this node, one per rank",))
    if visible and setting is not None:
        shown = f"CUDA_VISIBLE_DEVICES={setting[1]}"
    else:
        shown = f"'{stated[1]}'" if stated is not None else "the text"
    return Analysis(
        evidence=(f"{line} for {_gpus(count)} ({shown})",),
        cause=f"The launcher starts {per_node} processes on this node and NCCL needs a GPU of its own for "
        f"each rank; only {_gpus(count)} {'is' if count == 1 else 'are'} visible, so ranks share a GPU or "
        "find none.",
        fix=Fix(
            f"Start one process per visible GPU: --nproc_per_node={count} (accelerate launch --num_processes "
            f"{count}, a launch script's process count), or make more GPUs visible (CUDA_VISIBLE_DEVICES).",
            ("nvidia-smi -L",),
        ),
        check="cuda.visible_devices",
    )


# Lightning's check of the GPUs asked for against the CUDA devices torch sees in this process, numbered from
# 0: "You requested GPUs: [0, 1]\n But your machine only has: [0]" (or "[]": none seen).
_LIGHTNING_GPUS = re.compile(
    r"You requested (?:GPUs|gpu): \[([\d, ]{1,40})\]\s{0,40}(?:\(pid=\d{1,9}\)\s{0,4})?"
    r"But your machine only has: \[([\d, ]{0,40})\]",
    re.IGNORECASE,
)


def lightning_gpu_request(text: str) -> tuple[str, str] | None:
    """The GPU indices Lightning was asked for and those it found (empty where torch sees none), as
    comma-separated lists; None where the text has no such message."""
    found = last_match(_LIGHTNING_GPUS, text[-200_000:])
    if found is None:
        return None
    return ", ".join(found[1].replace(",", " ").split()), ", ".join(found[2].replace(",", " ").split())


def _lightning_gpus(text: str) -> Analysis | None:
    """Lightning's GPU indices against those this process sees; None where the text has no such message."""
    request = lightning_gpu_request(text)
    if request is None or not request[1]:
        return None
    asked, seen = request
    count = len(seen.split(", "))
    return Analysis(
        evidence=(f"Lightning was asked for GPUs [{asked}]; this process sees GPUs [{seen}]",),
        cause=f"Lightning numbers the GPUs this process sees from 0 ({_gpus(count)} here, as torch counts "
        "them after CUDA_VISIBLE_DEVICES) and was asked for one beyond them: a GPU index or count written "
        "for a machine with more GPUs (the authors' config), or a physical GPU number where "
        "CUDA_VISIBLE_DEVICES already renumbered them.",
        fix=Fix(
            f"Ask Lightning for GPUs that exist here: devices={count} (or a list of indices below {count}; "
            "gpus= in older releases), or devices=-1 for all visible ones; select a physical GPU with "
            "CUDA_VISIBLE_DEVICES and ask for index 0. A config's gpus or devices entry likewise.",
            ("nvidia-smi -L",),
        ),
        check="cuda.visible_devices",
    )


def analyse_ordinal(text: str) -> Analysis:
    """The ordinal asked for against the GPUs this process sees, reasoned with what the pasted text says: a
    CUDA_VISIBLE_DEVICES that renumbers the GPUs it keeps from cuda:0, torchrun starting more ranks per node
    than there are visible GPUs, the device indices the code names."""
    lightning = _lightning_gpus(text)
    if lightning is not None:
        return lightning
    match = last_match(_ORDINAL, text)
    asked = int(match[1]) if match is not None else None
    seen = int(match[2]) if match is not None and match[2] else None
    evidence = []
    if match is not None:
        evidence.append(f"asked for cuda:{asked}; this process sees {_gpus(seen or 0)}")
    setting = last_match(_CVD, text)
    visible: tuple[int | str, ...] = ()
    if setting is not None and setting[1]:
        visible = cvd.parse(setting[1]).items
        if visible:
            renumbered = ", ".join(f"{gpu} as cuda:{i}" for i, gpu in enumerate(visible[:8]))
            evidence.append(
                f"CUDA_VISIBLE_DEVICES={setting[1]} keeps {_gpus(len(visible))}, renumbered: {renumbered}"
            )
    said = _stated_gpus(text)
    stated = None if said is None else said[0]
    if said is not None and seen is None and not visible:
        evidence.append(f"the text says the machine has {_gpus(said[0])} ('{said[1]}')")
    count = seen if seen is not None else len(visible) or stated
    tail = text[-200_000:]
    gpu_list = last_match(_GPU_LIST, tail) or last_match(_GPU_LIST_IN_CODE, tail)
    asked_list: list[int] = []
    if gpu_list is not None and match is None:
        asked_list = [int(index) for index in re.findall(r"\d{1,2}", gpu_list[1])]
        written = " ".join(gpu_list[0].replace("，", ",").split())
        beyond = [index for index in asked_list if count is not None and index >= count]
        evidence.append(
            f"the command asks for GPUs {', '.join(map(str, asked_list))} ({written}): "
            + (
                f"{', '.join(f'cuda:{index}' for index in beyond)} beyond this machine's {_gpus(count)}"
                if beyond and count is not None
                else f"it needs {_gpus(max(asked_list) + 1)}"
            )
        )
        if beyond and count is not None:
            return Analysis(
                evidence=tuple(evidence),
                cause=f"The command asks for {_gpus(len(asked_list))} ({written}) and the machine has "
                f"{_gpus(count)}: cuda:{beyond[0]} does not exist (a GPU list written for a machine with "
                "more GPUs, such as the authors' multi-GPU one).",
                fix=Fix(
                    f"Ask only for GPUs that exist: {written.split()[0]} with indices below {count} "
                    f"({'0 on a one-GPU machine' if count == 1 else f'0 to {count - 1}'}), or the script's "
                    "single-GPU variant where it has one.",
                    ("nvidia-smi -L",),
                ),
                check="cuda.visible_devices",
            )
    ranks = last_match(_NPROC, text)
    if ranks is not None and (count is None or int(ranks[1]) <= count):
        per_node = int(ranks[1])
        evidence.append(
            f"--nproc_per_node={per_node} starts {per_node} ranks on this node, each taking cuda:LOCAL_RANK: "
            f"the node needs {per_node} visible GPUs"
        )
    if ranks is not None and count is not None and int(ranks[1]) > count:
        per_node = int(ranks[1])
        evidence.append(
            f"{per_node} ranks per node (--nproc_per_node={per_node}) for {count} visible "
            f"{'GPU' if count == 1 else 'GPUs'}: "
            + (
                f"local rank {count} has no GPU"
                if per_node - 1 == count
                else f"local ranks {count} to {per_node - 1} have no GPU"
            )
        )
        return Analysis(
            evidence=tuple(evidence),
            cause=f"torchrun starts {per_node} processes on this node, one per LOCAL_RANK, and each takes "
            f"cuda:LOCAL_RANK; only {_gpus(count)} {'is' if count == 1 else 'are'} visible, so the ranks "
            f"from {count} on ask for a GPU that does not exist.",
            fix=Fix(
                f"Start as many ranks per node as there are visible GPUs (--nproc_per_node={count}), or make "
                "more GPUs visible (CUDA_VISIBLE_DEVICES)."
            ),
            check="cuda.visible_devices",
        )
    by_rank = last_match(_BY_LOCAL_RANK, text)
    enough = ranks is not None and count is not None and int(ranks[1]) <= count
    if by_rank is not None and not enough:
        return _rank_beyond_gpus(evidence, by_rank[0], count, int(ranks[1]) if ranks is not None else None)
    option = last_match(_INDEX_FROM_OPTION, text[-200_000:])
    if option is not None and match is None and not visible:
        return _index_from_option(evidence, option[0], option[1], option[2], count)
    named = sorted({int(next(g for g in found.groups() if g)) for found in _NAMED.finditer(text[-200_000:])})
    if visible and all(isinstance(gpu, int) for gpu in visible):
        beyond = [index for index in named if index >= len(visible)]
        kept = [index for index in beyond if index in visible]
        if kept:
            physical = kept[0]
            position = visible.index(physical)
            evidence.append(
                f"cuda:{physical} is the physical GPU {physical}'s number; inside this process it is "
                f"cuda:{position}"
            )
            return Analysis(
                evidence=tuple(evidence),
                cause=f"CUDA_VISIBLE_DEVICES={setting[1] if setting else ''} renumbers the GPUs it keeps "
                f"from cuda:0, and the code still names the physical index: cuda:{physical} does not exist "
                "in this process.",
                fix=Fix(
                    f"Name the GPU by its number inside the process (cuda:{position}), or select it with "
                    "CUDA_VISIBLE_DEVICES alone and use cuda:0 in the code."
                ),
                check="cuda.visible_devices",
            )
    if named and match is None and not set(named) <= set(asked_list):
        listed = ", ".join(f"cuda:{index}" for index in named[:8])
        evidence.append(
            f"the text names {listed}: each must be below the number of GPUs this process sees "
            "(nvidia-smi -L)"
        )
    return Analysis(evidence=tuple(evidence))


# The failing call of the traceback takes its GPU index from a setting of the script
# ("torch.cuda.set_device(self.opt.gpu_ids[0])", "x.cuda(self.device_id[i])", "torch.device(args.gpu)"): the
# expression, and the name of the setting (its last attribute).
_INDEX_FROM_OPTION = re.compile(
    r"(?:set_device|\.cuda|torch\.device|\.to)\(\s{0,3}((?:[A-Za-z_]\w{0,40}\.){0,4}"
    r"(\w{0,20}(?:gpu|device_id|dev_id|cuda_id)\w{0,10})(?:\[\w{1,20}\])?)\s{0,3}\)",
    re.IGNORECASE,
)


def _index_from_option(
    evidence: list[str], call: str, expression: str, setting: str, count: int | None
) -> Analysis:
    """The index the failing call asks for is a setting of the script: most often its default, written for
    the authors' machine with more GPUs (or a list like '0,1'), on a machine with fewer."""
    evidence.append(f"the failing call takes its GPU index from {expression} ({call})")
    machine = f"this machine's {_gpus(count)}" if count is not None else "the GPUs this process sees"
    return Analysis(
        evidence=tuple(evidence),
        cause=f"The GPU index comes from the script's {setting} setting ({expression}), and it names a GPU "
        f"that does not exist among {machine}: a default or a list written for a machine with more GPUs, "
        "or an index beyond the GPUs made visible.",
        fix=Fix(
            f"Set {setting} to GPU indices that exist: 0 on a one-GPU machine (the script's option, such as "
            f"--{setting} 0, or its default in the code or config), or select the GPU with "
            "CUDA_VISIBLE_DEVICES and use index 0.",
            ("nvidia-smi -L",),
        ),
        check="cuda.visible_devices",
    )


def _rank_beyond_gpus(evidence: list[str], call: str, count: int | None, per_node: int | None) -> Analysis:
    """The failing call takes the GPU of the process's local rank: a launcher started more processes on this
    node than it has visible GPUs, and the ranks past the last GPU ask for one that does not exist."""
    evidence.append(f"the failing call takes the GPU by the process's local rank ({call}...)")
    if count is not None:
        return Analysis(
            evidence=tuple(evidence),
            cause=f"Each process takes cuda:LOCAL_RANK, and more processes were started on this node than "
            f"the {_gpus(count)} it has: the ranks from {count} on ask for a GPU that does not exist.",
            fix=Fix(
                f"Start one process per GPU: --nproc_per_node={count} ({_LAUNCHER_OPTIONS} set to {count}), "
                "or make more GPUs visible (CUDA_VISIBLE_DEVICES)."
            ),
            check="cuda.visible_devices",
        )
    started = f"{per_node} ranks per node (--nproc_per_node={per_node})" if per_node else "more ranks"
    return Analysis(
        evidence=tuple(evidence),
        cause=f"Each process takes cuda:LOCAL_RANK, and the launcher started {started} than this node has "
        "visible GPUs: the ranks past the last GPU ask for one that does not exist (more processes than "
        "GPUs).",
        fix=Fix(
            f"Start as many processes per node as there are visible GPUs ({_LAUNCHER_OPTIONS} equal to the "
            "count nvidia-smi -L gives), or make more GPUs visible (CUDA_VISIBLE_DEVICES).",
            ("nvidia-smi -L",),
        ),
        check="cuda.visible_devices",
    )


_SAVED_ON = re.compile(r"deserialize object on (\w+) device (\d+) but torch\.\w+\.device_count\(\) is (\d+)")
# Pasted texts double spaces, break lines and lose spaces inside the message, and an input method writes its
# full stop (。) for a dot: words are parted by up to three blanks.
_UNAVAILABLE = re.compile(
    r"deserialize\s{1,3}objects?\s{1,3}on\s{1,3}(?:a\s{1,3})?(\w+)\s{1,3}device\s{1,3}but\s{1,3}"
    r"torch[.。]\w+[.。]is_available(?:\(\))?\s{1,3}is\s{1,3}False",
    re.IGNORECASE,
)
# The writer's own check, in a shell or a notebook, finding the GPU ("my torch.cuda.is_available() return
# true", "Cuda is true"; the process that failed was hidden it), with the name quoted
# ("`torch.cuda.is_available()`, It shows True"), words before a verb of showing ("in my conda environment
# and it returned True", never across a False or a sentence's end; "is" only right after the call, as code
# says "and use_gpu is True") and True misspelt ("is Ture").
_SHOWED = r"returns?|returned|prints?|printed|gives?|gave|shows?|showed|outputs?"
_SAYS_AVAILABLE = re.compile(
    rf"is_a\w{{0,12}}(?:\(\))?[`'\"]?"
    rf"(?:\s{{0,3}}(?:is|{_SHOWED}|==?|->|:)?|(?:(?!false)[^.\n]){{1,60}}?\b(?:{_SHOWED})\b)"
    r"\s{0,3}[`'\"]?(?:True|Ture)\b"
    r"|\bcuda\s{1,3}is\s{1,3}true\b",
    re.IGNORECASE,
)


def says_gpu_available(text: str) -> bool:
    """Whether the writer says torch.cuda.is_available() gave True where they checked."""
    return _SAYS_AVAILABLE.search(text[-200_000:]) is not None


# A CUDA_VISIBLE_DEVICES of GPU indices set in the text (a launch script's export, a command, os.environ in
# the code), none of them 0: the GPUs of a smaller machine are hidden from the process.
_CVD_INDICES = re.compile(
    r"CUDA_VISIBLE_DEVICES['\"]?\]?[ \t]{0,3}=[ \t]{0,3}['\"]?([0-9]{1,2}(?:,[0-9]{1,2}){0,15})(?![\w$.])"
)


def hidden_gpus(text: str) -> Analysis | None:
    """The CUDA_VISIBLE_DEVICES the text sets where it names no GPU 0: on a machine without the GPUs it names
    (one GPU is GPU 0), the process sees none, which is how a program comes to find no GPU."""
    setting = last_match(_CVD_INDICES, text[-200_000:])
    if setting is None:
        return None
    indices = cvd.parse(setting[1]).items
    if not indices or 0 in indices:
        return None
    in_code = script_sets_visible_devices(text)
    if in_code is not None:
        return in_code
    kept = ("GPUs " if len(indices) > 1 else "GPU ") + ", ".join(str(index) for index in indices)
    return Analysis(
        evidence=(f"the text sets CUDA_VISIBLE_DEVICES={setting[1]}",),
        cause=f"CUDA_VISIBLE_DEVICES={setting[1]} shows the process only {kept} (nvidia-smi's numbers): "
        f"on a machine without {'them' if len(indices) > 1 else 'it'} (a "
        "machine with one GPU has only GPU 0) every GPU is hidden, torch.cuda.is_available() is False and "
        "the program finds none, whatever torch and driver are installed.",
        fix=Fix(
            "Set CUDA_VISIBLE_DEVICES where it is set (the launch script's export, the command, "
            "os.environ in the code) to GPUs this machine has, as nvidia-smi -L numbers them (0 on a one-GPU "
            "machine), or remove it.",
            ("nvidia-smi -L", "grep -rn CUDA_VISIBLE_DEVICES ."),
        ),
        check="cuda.visible_devices",
    )


def analyse_map_location(text: str) -> Analysis:
    """The device the checkpoint's tensors were saved on against the devices here; with none at all, the
    ways a process sees none: the machine has no GPU, its torch cannot use one (a CPU-only build), or a
    CUDA_VISIBLE_DEVICES the text sets hides them."""
    saved = last_match(_SAVED_ON, text)
    if saved is not None:
        device, index, count = saved[1].lower(), int(saved[2]), int(saved[3])
        return Analysis(
            evidence=(f"the tensors were saved on {device}:{index}; this process sees {count} GPU(s)",),
            fix=Fix(
                f"Map them to a GPU that exists: torch.load(path, map_location='{device}:0'), or "
                f"map_location={{'{device}:{index}': '{device}:0'}} "
                f"(f'{device}:{{local_rank}}' under torchrun)."
            ),
        )
    if last_match(_UNAVAILABLE, text) is None:
        return Analysis()
    if says_gpu_available(text):
        return _hidden_from_the_process(text)
    hidden = hidden_gpus(text)
    if hidden is not None:
        return hidden
    return Analysis(
        evidence=("torch here sees no GPU at all (torch.cuda.is_available() is False)",),
        cause="The checkpoint was saved from GPU tensors and torch.load puts them back on the GPU, but this "
        "torch sees none: the machine has no GPU, or it has one and this torch cannot use it (a CPU-only "
        "build of torch, installed by a plain pip install on some platforms, or a driver that does not "
        "load), or a CUDA_VISIBLE_DEVICES set by the launch script, the shell or the code names no GPU of "
        "this machine and hides them all.",
        fix=Fix(
            "On a machine without a GPU, map the tensors to the CPU: torch.load(path, map_location='cpu'). "
            "On a machine with a GPU, check that torch is a CUDA build (torch.version.cuda is None in a "
            "CPU-only build) and install the CUDA build from the PyTorch index (pip install torch "
            "--index-url "
            "https://download.pytorch.org/whl/<CUDA tag>; torchdoctor check --only torch.build names the tag "
            "for that machine), and that CUDA_VISIBLE_DEVICES, where the launch script or the code sets it, "
            "names GPUs nvidia-smi -L lists (0 on a one-GPU machine).",
            ('python -c "import torch; print(torch.__version__, torch.version.cuda)"', "nvidia-smi"),
        ),
    )


# CUDA_VISIBLE_DEVICES set by the program itself: os.environ["CUDA_VISIBLE_DEVICES"] = "2" (or .setdefault,
# .update, putenv), the value it gives.
_CVD_IN_CODE = re.compile(
    r"environ(?:\[\s{0,3}['\"]CUDA_VISIBLE_DEVICES['\"]\s{0,3}\]\s{0,3}=|\.setdefault\(\s{0,3}['\"]"
    r"CUDA_VISIBLE_DEVICES['\"]\s{0,3},)\s{0,3}(?:str\()?['\"]?([0-9A-Za-z,:\- ]{0,100})"
)


def _cvd_evidence(text: str) -> str | None:
    setting = last_match(_CVD, text)
    if setting is None:
        return None
    value = setting[1].strip() or "''"
    return f"the text sets CUDA_VISIBLE_DEVICES={value}"


def script_sets_visible_devices(text: str) -> Analysis | None:
    """The script setting CUDA_VISIBLE_DEVICES itself (os.environ, a GPU index of its authors' machine),
    where the text shows that line; None where it does not."""
    in_code = last_match(_CVD_IN_CODE, text[-200_000:])
    if in_code is None:
        return None
    value = in_code[1].strip().strip("'\"") or "''"
    return Analysis(
        evidence=(f"the script sets CUDA_VISIBLE_DEVICES={value} (os.environ)",),
        cause=f"The script itself sets CUDA_VISIBLE_DEVICES={value} before CUDA starts (a GPU "
        "index of its authors' machine): where no GPU has that index, the process sees none.",
        fix=Fix(
            "Comment out or delete the line that sets CUDA_VISIBLE_DEVICES in the script, or set it to "
            "GPUs this machine has (nvidia-smi -L lists them; '0' on a one-GPU machine); choose GPUs "
            "when launching instead (CUDA_VISIBLE_DEVICES=0 python train.py).",
            ("grep -rn CUDA_VISIBLE_DEVICES .", "nvidia-smi -L"),
        ),
        check="cuda.visible_devices",
    )


def analyse_no_gpus(text: str) -> Analysis:
    """A process that sees no GPU, read with what the text says: the script setting CUDA_VISIBLE_DEVICES
    itself (a GPU index of the authors' machine), or the writer's own check finding the GPU."""
    in_code = script_sets_visible_devices(text)
    if in_code is not None:
        return in_code
    if says_gpu_available(text):
        return _hidden_from_the_process(text, "ran")
    on_cpu = cpu_path(text) or asked_for_cpu(text)
    if on_cpu is not None:
        return on_cpu
    shown = _cvd_evidence(text)
    return Analysis(evidence=(shown,) if shown else ())


def _hidden_from_the_process(text: str, did: str = "loaded the checkpoint") -> Analysis:
    """torch sees a GPU where the writer checked, not in the process that failed: something hid it from
    that process, most often a CUDA_VISIBLE_DEVICES the script or its launcher sets per process."""
    evidence = ["the writer says torch.cuda.is_available() is True where they checked"]
    shown = _cvd_evidence(text)
    if shown is not None:
        evidence.append(shown)
    return Analysis(
        evidence=tuple(evidence),
        cause=f"torch sees the GPU where the writer checked, but not in the process that {did}: "
        "something hid the GPUs from that process. Most often a CUDA_VISIBLE_DEVICES the "
        "script sets (os.environ['CUDA_VISIBLE_DEVICES'] = '1' on a machine with one GPU), or a launcher "
        "that gives each "
        "process its own GPU and starts more processes than GPUs (the ranks past the last GPU see none); "
        "else the program runs with another Python or environment than the one checked.",
        fix=Fix(
            "Look for CUDA_VISIBLE_DEVICES in the script and its launch command and point it at GPUs that "
            "exist (or remove it); start no more processes than GPUs (--world_size, --nproc_per_node or "
            "--gpus equal to the GPU count); run the check with the same interpreter as the program."
            + (
                " On a machine meant to run without a GPU, torch.load(path, map_location='cpu')."
                if did.startswith("loaded")
                else ""
            ),
            ("grep -rn CUDA_VISIBLE_DEVICES .", "nvidia-smi -L"),
        ),
        check="cuda.visible_devices",
    )


# A row of nvidia-smi's Processes table: the GPU, the PID and the memory it holds there.
_PROCESS_ROW = re.compile(
    r"^[ \t>]{0,8}\|[ \t]{1,8}(\d{1,2})[ \t]{1,12}(?:N/A[ \t]{1,6}N/A[ \t]{1,8})?(\d{2,9})[ \t]{1,6}"
    r"(?:C\+G|C|G)[ \t][^\n]{0,120}?(\d{1,7}MiB|N/A)[ \t]{0,4}\|",
    re.MULTILINE,
)
_ROWS_READ = 512  # a bound on the rows read, however long the text


def _mib(used: str) -> int | None:
    return int(used[:-3]) if used.endswith("MiB") else None


def analyse_several_gpus(text: str) -> Analysis:
    """The processes the table shows on more than one GPU, with what each holds where; a process whose
    share on GPU 0 is the smallest of its shares made a context there, on the default device, while it
    works on another GPU."""
    where: dict[str, dict[int, str]] = {}
    for n, row in enumerate(_PROCESS_ROW.finditer(text[:200_000])):
        if n >= _ROWS_READ:
            break
        where.setdefault(row[2], {}).setdefault(int(row[1]), row[3])
    several = {pid: gpus for pid, gpus in where.items() if len(gpus) > 1}
    if not several:
        return Analysis()
    evidence = [
        f"PID {pid}: " + ", ".join(f"{used} on GPU {gpu}" for gpu, used in sorted(gpus.items()))
        for pid, gpus in list(several.items())[:4]
    ]
    if len(several) > 4:
        evidence.append(f"{len(several)} processes in all are on more than one GPU")
    stray = [
        pid
        for pid, gpus in several.items()
        if 0 in gpus
        and _mib(gpus[0]) is not None
        and all((_mib(used) or 0) > (_mib(gpus[0]) or 0) for gpu, used in gpus.items() if gpu != 0)
    ]
    if not stray:
        return Analysis(evidence=tuple(evidence))
    pid = stray[0]
    gpus = several[pid]
    main = max((gpu for gpu in gpus if gpu != 0), key=lambda gpu: _mib(gpus[gpu]) or 0)
    processes = (
        "One process"
        if len(several) == 1
        else ("One" if len(stray) == 1 else str(len(stray))) + " of the processes"
    )
    return Analysis(
        evidence=tuple(evidence),
        cause=f"{processes} working on GPU {main} (PID {pid}: {gpus[main]} there) also holds {gpus[0]} on "
        "GPU 0, the default device: a CUDA context (and perhaps tensors) made on cuda:0 by CUDA work done "
        "before the GPU was chosen, or by code that still names cuda:0 (a .cuda() without an index, a "
        "torch.load without map_location).",
        fix=Fix(
            f"Choose GPU {main} before anything touches CUDA: start the process with "
            f"CUDA_VISIBLE_DEVICES={main} (it then sees that GPU alone, as cuda:0, and nothing can land on "
            f"GPU 0), or call torch.cuda.set_device({main}) first in the program and give torch.load "
            f"map_location='cuda:{main}' (or 'cpu').",
            (f"CUDA_VISIBLE_DEVICES={main} python train.py",),
        ),
        check="cuda.visible_devices",
    )


# The program's own GPU option, as the text writes it ("--gpu", "--gpu_ids 2 3", "--gpus", "--gpu-id"), and
# a CUDA_VISIBLE_DEVICES set in code.
_GPU_OPTION = re.compile(r"(?<![\w-])--(?:gpus?|gpu[_-]ids?|gpu[_-]idx|device[_-]ids?)\b", re.IGNORECASE)
_SET_IN_CODE = re.compile(r"os\.environ\s{0,3}\[\s{0,3}['\"]CUDA_VISIBLE_DEVICES['\"]\s{0,3}\]\s{0,3}=")


def analyse_cvd_not_applied(text: str) -> Analysis:
    """The program's own GPU option the text names, and a CUDA_VISIBLE_DEVICES set in code."""
    evidence = []
    option = last_match(_GPU_OPTION, text)
    if option is not None:
        evidence.append(
            f"the program has its own GPU option ({option[0]}): choose the GPU with it; a program that sets "
            "CUDA_VISIBLE_DEVICES from it overrides the shell's"
        )
    if last_match(_SET_IN_CODE, text) is not None:
        evidence.append(
            "the text sets CUDA_VISIBLE_DEVICES in code (os.environ): it counts only before torch starts CUDA"
        )
    return Analysis(evidence=tuple(evidence))


_DEVICE_STRING = re.compile(
    r"Invalid device string: ['\"]([^'\"\n]{0,80})['\"]"
    r"|torch\.device\(\s{0,3}f?['\"](cuda:\d{1,2}\s{0,2},\s{0,2}\d{1,2}[\d, ]{0,20})['\"]",
    re.IGNORECASE,
)


def analyse_device_string(text: str) -> Analysis:
    """What is wrong with the device string: several GPUs, a bare number, None, the prefix doubled."""
    found = last_match(_DEVICE_STRING, text[-200_000:])
    if found is None:
        return Analysis()
    said = found[1] if found[1] is not None else found[2]
    quoted = f"the device string is '{said}'"
    index = said.split(":", 1)[1] if ":" in said else said
    if "," in said:
        return Analysis(
            evidence=(f"{quoted}: it names several GPUs, and a torch.device is one device",),
            fix=Fix(
                "A torch.device is one GPU: use torch.device('cuda:0') (with CUDA_VISIBLE_DEVICES choosing "
                "which physical GPUs the program sees, set before it starts), and spread the model or batch "
                "over several GPUs with nn.DataParallel(model, device_ids=[0, 1]) or DistributedDataParallel "
                "(torch.distributed, one process per GPU under torchrun).",
                ("nvidia-smi -L",),
            ),
        )
    if said.strip().isdigit():
        return Analysis(
            evidence=(f"{quoted}: a bare index without its device type",),
            fix=Fix(
                f"Write the device as 'cuda:{said.strip()}', or pass the index as an integer "
                f"(torch.device('cuda', {said.strip()}), torch.cuda.set_device(int(gpu))): the program's GPU "
                "option reached torch.device as a string."
            ),
        )
    if index.strip().lower() == "none":
        return Analysis(
            evidence=(f"{quoted}: the index was None, a variable the program never set",),
            fix=Fix(
                "The GPU index came from a variable left None, most often the local rank: launch with "
                "torchrun (which sets LOCAL_RANK; read it with int(os.environ['LOCAL_RANK'])) or give the "
                "program's GPU option, or use 'cuda' (the current device) where no index is known."
            ),
        )
    if said.lower().count("cuda") > 1:
        return Analysis(
            evidence=(f"{quoted}: 'cuda:' written twice, an option that held 'cuda:0' already",),
            fix=Fix(
                "Pass the option as the program expects it (an index such as 0 where it adds 'cuda:' "
                "itself), or update the program whose default formats 'cuda:' twice."
            ),
        )
    return Analysis(evidence=(quoted,))


_DATAPARALLEL_DEVICES = re.compile(
    r"on device ?(\S{1,20}?) ?\(device_ids\[0\]\) ?but found one of them on device ?: ?(\S{1,20})"
)
# The text runs on a GPU other than cuda:0: "cuda:1", "gpu 2", "other than device:0", "isn't `cuda:0`".
_OTHER_THAN_FIRST = re.compile(
    r"\bcuda:([1-9]\d?)\b|\b(?:gpu|device)(?:[ _-]?id)?\s{0,2}[=:]?\s{0,2}([1-9]\d?)\b"
    r"|\bother than (?:device[: ]?|cuda:|gpu ?)?0\b|\bdevice ?!= ?0\b|\b(?:isn't|not)\W{0,3}cuda:0\b",
    re.IGNORECASE,
)
_SET_DEVICE_FIX = Fix(
    "Make the GPU the job runs on the current device before the model is built: torch.cuda.set_device(N) "
    "(kernels, custom ops and tensors made on the default device go to the current device, cuda:0 unless "
    "set), or run with CUDA_VISIBLE_DEVICES=N so that it is the only GPU and cuda:0 in the code. Then, if it "
    "persists, find the kernel with CUDA_LAUNCH_BLOCKING=1.",
    ("CUDA_LAUNCH_BLOCKING=1 python train.py",),
)


# Isaac Gym's GPU PhysX: its source paths and plugin ("PxgNarrowphaseCore.cpp", "[carb.gym.plugin]").
_PHYSX = re.compile(r"\bPhysX\b|\bcarb\.gym\b|\bPxg\w{1,40}|\bisaacgym\b|\blegged_gym\b", re.IGNORECASE)
_PHYSX_CAUSE = (
    "Isaac Gym's GPU PhysX keeps its own GPU buffers beside PyTorch's (the contact pairs, the environments' "
    "state, the terrain's mesh) and reports running out of them as an illegal memory access: the simulation "
    "asked for more than they hold or than the GPU has left."
)
_PHYSX_FIX = Fix(
    "Give the simulation less to hold: fewer parallel environments (num_envs, --num_envs), a smaller "
    "max_gpu_contact_pairs in the sim's physx config (legged_gym's 2**24 is meant for 8000 environments and "
    "more; 2**18 ran on an RTX 3060), a smaller terrain (num_rows, num_cols); run it once with the "
    "simulation on the CPU (--sim_device=cpu) to confirm.",
    ("nvidia-smi",),
)


def analyse_illegal_access(text: str) -> Analysis:
    """Isaac Gym's PhysX reports its own buffers running out so; elsewhere a GPU other than cuda:0 in the
    text: the current device left at cuda:0 leads the fix."""
    tail = text[-200_000:]
    physx = last_match(_PHYSX, tail)
    if physx is not None:
        line = f"the text is Isaac Gym's GPU PhysX ({physx[0]}): its own GPU buffers"
        return Analysis(evidence=(line,), cause=_PHYSX_CAUSE, fix=_PHYSX_FIX)
    found = last_match(_OTHER_THAN_FIRST, tail)
    if found is None:
        return Analysis()
    said = " ".join(found[0].split())
    line = f"the text runs on a GPU other than cuda:0 ({said}): the current device stays cuda:0 unless set"
    return Analysis(evidence=(line,), fix=_SET_DEVICE_FIX)


# DataParallel's wrapper of the error a replica raised: the error's name, the replica and its GPU.
_REPLICA_ERROR = re.compile(r"Caught (\w{1,40}) in replica (\d{1,3}) on device (\d{1,3})")


# A frame of DataParallel's forward or parallel_apply, through which a replica's error comes back.
_DATAPARALLEL_FRAME = re.compile(r"[/\\]parallel[/\\](?:data_parallel|parallel_apply)\.py\b")


def analyse_replica_stopiteration(text: str) -> Analysis:
    """The replica and GPU the message names; a bare StopIteration only where DataParallel's frames show the
    traceback ran through it (the wrapper's line cut from the paste)."""
    named = quoted(
        _REPLICA_ERROR,
        text,
        lambda f: f"replica {f[2]} on GPU {f[3]} found no parameters of its own (torch 1.5 or later)",
    )
    if named.evidence:
        return named
    if _DATAPARALLEL_FRAME.search(text[-200_000:]) is None:
        return Analysis(declined=True)
    return Analysis(
        evidence=(
            "a StopIteration whose traceback runs through nn.DataParallel (its line 'Caught StopIteration in "
            "replica N on device N' is not in the text)",
        )
    )


def analyse_replica_error(text: str) -> Analysis:
    """The error and the replica and GPU the wrapper names."""
    return quoted(
        _REPLICA_ERROR,
        text,
        lambda f: f"a {f[1]} was raised in DataParallel's replica {f[2]} on GPU {f[3]}",
    )


_DATAPARALLEL_PLACES = catalogue_file.cases(__package__, "dataparallel.module_not_on_first_device")


def analyse_dataparallel_device(text: str) -> Analysis:
    """The first GPU of device_ids and where the message found the parameter: the CPU or another GPU."""
    found = last_match(_DATAPARALLEL_DEVICES, text[-200_000:])
    if found is None:
        return Analysis()
    first, elsewhere = found[1], found[2].rstrip(".,;:!)'\"")
    line = f"DataParallel's first device is {first}; a parameter or buffer of the model was on {elsewhere}"
    case = next((c for c in _DATAPARALLEL_PLACES if c.compiled.search(elsewhere)), None)
    return Analysis(evidence=(line,)) if case is None else case.analysis(line)


_EXCLUSIVE = re.compile(r"E\. Process|Exclusive[_ ]Process|exclusive[- ](?:process )?mode", re.IGNORECASE)


def analyse_devices_unavailable(text: str) -> Analysis:
    """The compute mode the text shows, and the GPU the program names: several processes on it meet this."""
    tail = text[-200_000:]
    evidence = []
    if last_match(_EXCLUSIVE, tail) is not None:
        evidence.append("the text shows a GPU in exclusive-process mode: one process at a time")
    named = last_match(_NAMED, tail)
    if named is not None:
        index = next(group for group in named.groups() if group is not None)
        evidence.append(
            f"the program names cuda:{index}: in exclusive-process mode one process at a time can hold it"
        )
    return Analysis(evidence=tuple(evidence))


# The two numberings side by side: nvidia-smi -L ("GPU 0: NVIDIA GeForce RTX 3060 (UUID: GPU-...)") and
# torch's ("cuda:0 -> NVIDIA GeForce RTX 5060 Ti", "get_device_name(0))  # prints: NVIDIA ...").
_NVSMI_LISTED = re.compile(r"^[ \t]*GPU (\d{1,2}): ([^\n(]{2,80}?) \(UUID", re.MULTILINE)
_TORCH_LISTED = re.compile(
    r"cuda:(\d{1,2}) -> ([^|\n]{2,80}?)[ \t]*(?:\||$)|get_device_name\((\d{1,2})\)\)?[ \t]{0,4}#[ \t]{0,2}"
    r"prints:[ \t]{0,2}([^\n]{2,80}?)[ \t]*$",
    re.MULTILINE,
)
_LISTED_READ = 16  # GPUs read from each listing, however long the text


def analyse_device_order(text: str) -> Analysis:
    """The first index at which nvidia-smi's listing and torch's name different GPUs."""
    tail = text[-200_000:]
    smi = {m[1]: m[2].strip() for m in islice(_NVSMI_LISTED.finditer(tail), _LISTED_READ)}
    listed = islice(_TORCH_LISTED.finditer(tail), _LISTED_READ)
    torch_names = {(m[1] or m[3]): (m[2] or m[4]).strip() for m in listed}
    for index, name in torch_names.items():
        if index in smi and smi[index] != name:
            return Analysis(
                evidence=(f"nvidia-smi's GPU {index} is {smi[index]}; torch's cuda:{index} is {name}",)
            )
    return Analysis()


# The torch.cuda function a traceback shows refusing the device, or the one the writer names.
_CUDA_FUNCTION_FRAME = re.compile(r"torch[/\\]cuda[/\\]\w+\.py\"?, line \d+, in (\w+)")
_CUDA_FUNCTION_NAMED = re.compile(r"torch\.cuda\.(?:memory\.)?(\w+)\(")


def analyse_device_without_index(text: str) -> Analysis:
    tail = text[-200_000:]
    found = last_match(_CUDA_FUNCTION_FRAME, tail) or last_match(_CUDA_FUNCTION_NAMED, tail)
    if found is None:
        return Analysis()
    return Analysis(evidence=(f"the call that refused it: torch.cuda.{found[1]}",))


_HOST_READ = re.compile(r"\.(item|tolist|cpu|numpy)\(\)|torch\.cuda\.synchronize\(\)")


def _host_read(found: re.Match[str]) -> str:
    if found[1] is None:
        shown, what = "torch.cuda.synchronize()", "a synchronisation"
    else:
        shown, what = f".{found[1]}()", "a GPU value read on the host"
    return f"the text shows {shown} near the capture: {what}, which a capture cannot hold"


def analyse_graph_capture_refused(text: str) -> Analysis:
    return quoted(_HOST_READ, text, _host_read)


def analyse_no_xpu_devices(text: str) -> Analysis:
    tail = text[-200_000:]
    if "ONEAPI_DEVICE_SELECTOR" not in tail or "ZE_AFFINITY_MASK" not in tail:
        return Analysis()
    return Analysis(
        evidence=(
            "the text sets ONEAPI_DEVICE_SELECTOR and ZE_AFFINITY_MASK: one numbers the devices within what "
            "the other left, so together they find card 0 only; set one of them",
        )
    )


_XID_8 = re.compile(r"\bXid \([^)\n]{0,40}\): 8\b")
_RC_TIMEOUT = re.compile(r"RC watchdog[^\n]{0,80}?Notify Timeout Seconds: (\d{1,5})")


def analyse_launch_timeout(text: str) -> Analysis:
    tail = text[-200_000:]
    if _XID_8.search(tail) is None:
        return Analysis()
    timeout = last_match(_RC_TIMEOUT, tail)
    said = f"; its notify timeout {timeout[1]} s" if timeout is not None else ""
    return Analysis(evidence=(f"the driver's RC watchdog stopped the GPU's channel (Xid 8{said})",))


def analyse_peer_access_unsupported(text: str) -> Analysis:
    if "transport/shm.cc" not in text[-200_000:]:
        return Analysis()
    return Analysis(evidence=("NCCL's shared-memory transport (transport/shm.cc) asked for it",))


ENTRIES: tuple[Entry, ...] = catalogue_file.read(__package__, globals())
