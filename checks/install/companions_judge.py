"""Judging the ``companions`` and ``companion_operators`` facts against the installed torch.

A torchvision or torchaudio of another torch release fails to register its operators ("operator
torchvision::nms does not exist"); a companion built for another CUDA (``+cu121`` beside a CPU-only torch)
cannot load its extension; a triton or an ``nvidia-*`` wheel outside torch's own pin breaks torch.compile or
the libraries torch was built against. Every fix names the exact install command.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from torchdoctor.checks.install import pairing
from torchdoctor.checks.install.companions_probe import TRITON_NAMES
from torchdoctor.checks.install.cuda_compat import WHEEL_ROOT
from torchdoctor.checks.install.versions import outside, parse_version, release_line, satisfies
from torchdoctor.model import Finding, Fix, Status

_LABEL_RE = re.compile(r"cpu|cu\d{2,3}|rocm\d+(?:\.\d+)*|xpu")
_QUOTE_RE = re.compile(r"[<>*~!,\[\] ;]")


def index_label(version: str | None) -> str | None:
    """The wheel index a build comes from, by its local label: ``2.13.0+cpu`` -> ``cpu``; None for PyPI's."""
    local = (version or "").partition("+")[2]
    return local if _LABEL_RE.fullmatch(local) else None


def _flavor_of_label(label: str | None) -> tuple[str, str | None] | None:
    if label is None:
        return None
    if label in ("cpu", "xpu"):
        return (label, None)
    if label.startswith("cu"):
        digits = label[2:]
        return ("cuda", f"{digits[:-1]}.{digits[-1]}")
    return ("rocm", label[4:])


def torch_flavor(torch: Mapping[str, Any]) -> tuple[str, str | None] | None:
    flavor = str(torch.get("flavor"))
    if flavor in ("cpu", "xpu"):
        return (flavor, None)
    # torch.version.cuda of a CUDA build, torch.version.hip of a ROCm one ("6.2.41133-dd7f95766")
    toolkit = torch.get({"cuda": "cuda", "rocm": "hip"}.get(flavor, ""))
    if toolkit:
        return (flavor, ".".join(str(toolkit).split(".")[:2]))
    return _flavor_of_label(index_label(torch.get("version")))


def _flavor_text(flavor: tuple[str, str | None]) -> str:
    kind, version = flavor
    return {"cpu": "CPU-only", "cuda": "CUDA", "rocm": "ROCm", "xpu": "XPU"}[kind] + (
        f" {version}" if version else ""
    )


# The packages PyTorch's wheel index holds (download.pytorch.org/whl/<label>/<name>/); every other companion
# comes from PyPI.
_ON_TORCH_INDEX = frozenset(
    {"torch", "torchvision", "torchaudio", "torchtext", "torchdata", "triton", "pytorch-triton", "xformers"}
)
# Compiled against the torch already installed: pip's build isolation would build it against a torch of its
# own ("pip install flash-attn --no-build-isolation", Dao-AILab/flash-attention README).
_BUILT_AGAINST_TORCH = frozenset({"flash-attn"})
# NVIDIA's apex is not on PyPI (PyPI's "apex" is another project): it is built from its repository
# (NVIDIA/apex README; NVIDIA/Megatron-LM install-apex.sh).
APEX_BUILD = (
    "git clone https://github.com/NVIDIA/apex && cd apex && pip install -v --disable-pip-version-check "
    '--no-cache-dir --no-build-isolation --config-settings "--build-option=--cpp_ext" '
    '--config-settings "--build-option=--cuda_ext" ./'
)
_BUILT_FROM_REPOSITORY = {"apex": APEX_BUILD}


def install_command(name: str, version: str, torch_version: str, reinstall: bool = False) -> str:
    """``pip install torchvision==0.28.0 --index-url https://download.pytorch.org/whl/cpu``: the release,
    from the index the installed torch came from (PyPI's own torch: PyPI) where that index holds the package,
    else from PyPI. A nightly torch pairs with the companion nightly of its index (under /whl/nightly, as
    torch's own hint says)."""
    built = _BUILT_FROM_REPOSITORY.get(name)
    if built is not None:
        return built
    label = index_label(torch_version) if name in _ON_TORCH_INDEX else None
    command = "pip install --force-reinstall --no-deps" if reinstall else "pip install"
    if name in _BUILT_AGAINST_TORCH:
        command += " --no-build-isolation"
    if _is_nightly(torch_version) and name in _ON_TORCH_INDEX:
        return f"{command} --pre {name} --index-url {WHEEL_ROOT}/nightly/{label or 'cpu'}"
    parsed = parse_version(version)
    if parsed is not None and len(parsed.release) < 3 and name in pairing.PAIRED and not reinstall:
        # The table names only the release line (torchvision's README for torch 1.x): pip picks the patch
        # release that fits this torch when torch is held at its release.
        command += f' "{name}=={version}.*" "torch=={_public(torch_version)}"'
    else:
        command += f" {name}=={version}"
    if label is not None:
        command += f" --index-url {WHEEL_ROOT}/{label}"
    return command


def _is_nightly(torch_version: str) -> bool:
    parsed = parse_version(torch_version)
    return parsed is not None and parsed.is_prerelease


def requirement_text(pin: Mapping[str, Any]) -> str:
    extras = f"[{','.join(pin['extras'])}]" if pin.get("extras") else ""
    return shell_word(f"{pin['name']}{extras}{pin['specifier']}")


def shell_word(requirement: str) -> str:
    """A requirement as one word of a shell command: quoted where a shell would read it otherwise (``*``
    globs, ``<`` redirects, a space splits)."""
    return f'"{requirement}"' if _QUOTE_RE.search(requirement) else requirement


def _public(version: str) -> str:
    return version.partition("+")[0]


def _tries_by_name(ops: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {t["name"]: t for t in ops.get("tries") or []}


def _operator_error(attempt: Mapping[str, Any] | None) -> tuple[str, str] | None:
    """(what was tried, the error text) of a failed try."""
    if attempt is None:
        return None
    if attempt.get("import_error"):
        return f"import {attempt['module']}", str(attempt["import_error"])
    if attempt.get("operator_error"):
        return str(attempt.get("operator") or attempt["module"]), str(attempt["operator_error"])
    return None


_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([A-Za-z_][A-Za-z0-9_.]{0,200})'")
# Import name -> the package that provides it, where they differ: torchvision's Requires-Dist names "pillow",
# whose wheels install the top-level package PIL.
_PACKAGE_OF_MODULE = {"PIL": "pillow"}


def _missing_dependency(companion: str, module: str, error: str) -> tuple[str, str] | None:
    """(module, package) of a module the companion imports that is not installed; None where the error is
    not that, or names the companion's own module or torch (its own install is broken then)."""
    match = _MISSING_MODULE.match(error)
    if match is None:
        return None
    top = match[1].split(".")[0]
    if top in (module, companion.replace("-", "_"), "torch"):  # OPERATOR_TRIES imports top-level modules
        return None
    return top, _PACKAGE_OF_MODULE.get(top, top)


def _quoted_message(error: str) -> str:
    message = error.partition(": ")[2] or error
    return f'"{message[:120]}"'


def findings(torch: Mapping[str, Any], comps: Mapping[str, Any], ops: Mapping[str, Any]) -> list[Finding]:
    torch_version = str(torch.get("version") or (comps.get("torch") or {}).get("version") or "")
    if not torch_version:
        return []
    tries = _tries_by_name(ops)
    found: list[Finding] = []
    for companion in comps.get("companions") or []:
        if companion["name"] in TRITON_NAMES:
            continue  # judged against torch's own pin below
        finding = _companion_finding(torch, torch_version, companion, tries.get(companion["name"]))
        if finding is not None:
            found.append(finding)
    found += _pin_findings(torch_version, comps)
    if "pins" not in comps:
        found += _table_triton_findings(torch, torch_version, comps)
    found += _cuda_family_findings(torch, torch_version, comps)
    return found


_NVIDIA_FAMILY_RE = re.compile(r"nvidia-[a-z0-9-]+-cu(\d{2})")


def _cuda_family_findings(
    torch: Mapping[str, Any], torch_version: str, comps: Mapping[str, Any]
) -> list[Finding]:
    """``nvidia-*-cuNN`` wheels of another CUDA major than torch's build. torch pins and loads its own CUDA's
    wheels, so these serve another package, or shadow torch's when their folders reach the library path. A
    dump lists every such wheel; a live machine's facts list only the ones torch pins (judged above)."""
    cuda = str(torch.get("cuda") or "")
    major = re.match(r"\d+(?=\.)", cuda)
    if torch.get("flavor") not in (None, "cuda") or major is None:
        return []
    installed: Mapping[str, str] = comps.get("installed") or {}
    other: dict[str, tuple[int, str]] = {}
    for name in sorted(installed):
        family = _NVIDIA_FAMILY_RE.fullmatch(name)
        if family is not None and family[1] != major[0]:
            other[name] = (int(family[1]), installed[name])
    if not other:
        return []
    families = " and ".join(f"CUDA {f}" for f in sorted({f for f, _ in other.values()}))
    summary = (
        f"{len(other)} nvidia-* wheel(s) of {families} beside torch {torch_version}, a CUDA {cuda} build: "
        f"torch loads its own CUDA {major[0]} libraries; these serve another package, or shadow them"
    )
    fix = Fix(
        "Keep them only if another package needs them (pip show NAME lists what requires it); never put "
        f"their lib folders on LD_LIBRARY_PATH beside a CUDA {major[0]} torch.",
        tuple(f"pip show {name}" for name in other),
    )
    return [Finding(Status.WARN, summary, tuple(f"{n} {v}" for n, (_, v) in other.items()), fix)]


def marker_environment(torch: Mapping[str, Any]) -> dict[str, str]:
    """The PEP 508 marker variables of the machine the facts describe (a dump's OS, machine and Python)."""
    system = str((torch.get("os") or {}).get("system") or "")
    python = str(torch.get("python") or "")
    return {
        "platform_system": system,
        "sys_platform": {"Linux": "linux", "Windows": "win32", "Darwin": "darwin"}.get(
            system, system.lower()
        ),
        "platform_machine": str(torch.get("machine") or ""),
        "python_version": ".".join(python.split(".")[:2]),
        "python_full_version": python,
        "os_name": {"Windows": "nt"}.get(system, "posix"),
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
    }


def _table_triton_findings(
    torch: Mapping[str, Any], torch_version: str, comps: Mapping[str, Any]
) -> list[Finding]:
    """Where torch's own pins are not known (a collect_env dump lists packages, not torch's metadata): the
    installed triton against the table's pins of torch's Linux x86_64 wheel, with their markers evaluated for
    the machine of the dump (torch 2.2.1 to 2.5.1 pin triton only below a Python version)."""
    installed = (comps.get("installed") or {}).get("triton")
    row = pairing.row_for(torch_version)
    system = (torch.get("os") or {}).get("system")
    machine = str(torch.get("machine") or "").lower()
    linux_cuda = torch.get("flavor") == "cuda" and system == "Linux" and machine in ("x86_64", "amd64")
    if not installed or row is None or not row.exact or not linux_cuda or not torch.get("python"):
        return []
    pins = row.triton_pins(marker_environment({**torch, "machine": "x86_64"}))
    pin = next((p for p in pins or [] if p.get("specifier")), None)  # the table pins triton alone
    if pin is None or not outside(str(installed), pin["specifier"]):
        return []
    return [
        Finding(
            Status.FAIL,
            f"triton {installed} is installed, but torch {torch_version} requires triton{pin['specifier']}",
            (
                f"pairing table: torch {row.torch} wheels for Linux x86_64 pin triton{pin['specifier']}"
                + (f"; {pin['marker']}" if pin.get("marker") else ""),
                f"source: {row.source}",
                "torch.compile generates code for the triton release torch pins; another release fails "
                "at compile time",
            ),
            Fix(
                f"Install the triton release torch {_public(torch_version)} requires.",
                (f"pip install {requirement_text({'name': 'triton', 'specifier': pin['specifier']})}",),
            ),
        )
    ]


def _companion_finding(
    torch: Mapping[str, Any],
    torch_version: str,
    companion: Mapping[str, Any],
    attempt: Mapping[str, Any] | None,
) -> Finding | None:
    name = companion["name"]
    version = str(companion["version"])
    pair = pairing.pair(name, version, torch_version) if name in pairing.PAIRED else None
    if pair is not None and pair.fits is None and "requires_torch" not in companion:
        # Facts without the companion's own metadata (a collect_env dump): judge a release beside a nightly
        # torch by the torch line it was made for.
        pair = pairing.by_release_line(name, version, torch_version) or pair
    unmet = [
        r
        for r in companion.get("requires_torch") or []
        if r.get("applies") and outside(torch_version, r["specifier"])
    ]
    failure = _operator_error(attempt)
    own = _flavor_of_label(index_label(companion.get("build_version")))
    theirs = torch_flavor(torch)
    flavor_clash = own is not None and theirs is not None and own != theirs
    evidence: list[str] = [f"{name} {version} requires torch{r['specifier']} (its metadata)" for r in unmet]
    if failure:
        evidence.append(f"{failure[0]}: {failure[1]}")
    if flavor_clash and own is not None and theirs is not None:
        evidence.append(
            f"{name} {companion.get('build_version')} ({companion.get('build_version_from')}) is a "
            f"{_flavor_text(own)} build; torch {torch_version} is {_flavor_text(theirs)}"
        )
    said = f": {_quoted_message(failure[1])}" if failure else ""
    if pair is not None and pair.fits is False:
        if pair.expected is None:
            return Finding(
                Status.FAIL,
                f"{name} {version} is made for {pair.made_for}, not for torch {torch_version}{said}",
                tuple(evidence),
                _any_release_fix(name, torch_version),
            )
        evidence.insert(
            0, f"pairing table: torch {torch_version} -> {name} {pair.expected} ({_table_row(torch_version)})"
        )
        return Finding(
            Status.FAIL,
            f"{name} {version} is made for {pair.made_for}; torch {torch_version} pairs with {name} "
            f"{pair.expected}{said}",
            tuple(evidence),
            Fix(
                f"Install the {name} release made for torch {_public(torch_version)}, from the index torch "
                "came from.",
                (install_command(name, pair.expected, torch_version),),
            ),
        )
    if unmet and (pair is None or pair.fits is None):
        return Finding(
            Status.FAIL,
            f"{name} {version} requires torch{_specifiers(unmet)} (its metadata), but torch is "
            f"{torch_version}{said}",
            tuple(evidence),
            _any_release_fix(name, torch_version),
        )
    release = pair.expected if pair is not None and pair.fits and pair.expected else _public(version)
    if flavor_clash and own is not None and theirs is not None and _major_clash(own, theirs):
        return Finding(
            Status.FAIL,
            f"{name} {companion.get('build_version')} is a {_flavor_text(own)} build, but torch "
            f"{torch_version} is {_flavor_text(theirs)}{said}",
            tuple(evidence),
            Fix(
                f"Reinstall {name} {release} from the index torch came from, built for the same "
                f"{_flavor_text(theirs)} torch.",
                (install_command(name, release, torch_version, reinstall=True),),
            ),
        )
    missing = (
        _missing_dependency(name, str((attempt or {}).get("module") or name), failure[1]) if failure else None
    )
    if missing is not None:
        module, package = missing
        return Finding(
            Status.FAIL,
            f"{name} {version} does not import: the module {module} it needs is not installed (package "
            f"{package})",
            tuple(evidence),
            Fix(
                f"Install {package}, which {name} imports (a --no-deps install of {name} leaves it out).",
                (f"pip install {package}",),
            ),
        )
    if failure:
        return Finding(
            Status.FAIL,
            f"{name} {version} cannot run its compiled operators with torch {torch_version}{said}",
            tuple(evidence),
            Fix(
                f"Reinstall {name} {release} built for this torch (a partial install, or one built against "
                "another torch, leaves its extension unloadable).",
                (install_command(name, release, torch_version, reinstall=True),),
            ),
        )
    if flavor_clash and own is not None and theirs is not None:
        return Finding(
            Status.WARN,
            f"{name} {companion.get('build_version')} is a {_flavor_text(own)} build beside torch "
            f"{torch_version} ({_flavor_text(theirs)}): it loads because the major versions agree, but it "
            "is not the build made for this torch",
            tuple(evidence),
            Fix(
                f"Install {name} {release} from torch's own index.",
                (install_command(name, release, torch_version, reinstall=True),),
            ),
        )
    if unmet and pair is not None and pair.fits and pair.expected:
        return Finding(
            Status.WARN,
            f"{name} {version} asks for torch{_specifiers(unmet)} (its metadata) and torch is "
            f"{torch_version}: pip check reports a conflict",
            tuple(evidence),
            Fix(
                f"Install the exact {name} release of this torch.",
                (install_command(name, pair.expected, torch_version),),
            ),
        )
    return None


def _specifiers(requirements: Sequence[Mapping[str, Any]]) -> str:
    """The specifiers of torch a companion's metadata asks for, as one: ``>=2.0,<2.1``."""
    return ",".join(str(r["specifier"]) for r in requirements)


def _any_release_fix(name: str, torch_version: str) -> Fix:
    """For a companion the table cannot name a release of: let pip pick one while torch stays as it is."""
    if _is_nightly(torch_version) and name in pairing.PAIRED:
        return Fix(
            f"Install the {name} nightly from the index of this nightly torch.",
            (install_command(name, "", torch_version),),
        )
    return Fix(
        f"Install the {name} release built for torch {_public(torch_version)}: pip picks it when torch is "
        "held at its release.",
        (f'pip install {name} "torch=={_public(torch_version)}"',),
    )


def _major_clash(own: tuple[str, str | None], theirs: tuple[str, str | None]) -> bool:
    if own[0] != theirs[0]:
        return True
    return (own[1] or "").split(".")[0] != (theirs[1] or "").split(".")[0]


def _table_row(torch_version: str) -> str:
    row = pairing.row_for(torch_version)
    if row is None:
        return "not in the table"
    return f"row {row.torch}" + (
        "" if row.exact else f", the nearest release of the {release_line(row.torch)} line"
    )


def _pin_findings(torch_version: str, comps: Mapping[str, Any]) -> list[Finding]:
    installed: Mapping[str, str] = comps.get("installed") or {}
    pins = [p for p in comps.get("pins") or [] if p.get("applies") and p.get("specifier")]
    found: list[Finding] = []
    for pin in (p for p in pins if p["name"] in TRITON_NAMES):
        found += _triton_finding(torch_version, pin, installed.get(pin["name"]))
    wheel_pins = [p for p in pins if p["name"] not in TRITON_NAMES]
    off_pin = [
        p for p in wheel_pins if installed.get(p["name"]) and outside(installed[p["name"]], p["specifier"])
    ]
    missing = [p for p in wheel_pins if p["name"] not in installed]
    if off_pin:
        names = ", ".join(f"{p['name']} {installed[p['name']]}" for p in off_pin)
        summary = (
            f"{names} is outside torch {torch_version}'s pin {off_pin[0]['name']}{off_pin[0]['specifier']}"
            if len(off_pin) == 1
            else f"{len(off_pin)} CUDA wheels are outside torch {torch_version}'s pins: {names}"
        )
        found.append(
            Finding(
                Status.FAIL,
                summary,
                tuple(_pin_line(p, installed.get(p["name"])) for p in off_pin),
                Fix(
                    "Install the CUDA wheels at the versions torch pins: torch was built and tested against "
                    "exactly these libraries.",
                    ("pip install " + " ".join(requirement_text(p) for p in off_pin),),
                ),
            )
        )
    if missing:
        found.append(
            Finding(
                Status.WARN,
                f"{len(missing)} CUDA wheel(s) that torch {torch_version} pins are not installed: "
                + ", ".join(p["name"] for p in missing),
                (
                    *(_pin_line(p, None) for p in missing),
                    "torch then loads whatever copy the system's library path has, if any",
                ),
                Fix(
                    "Install them at the pinned versions.",
                    ("pip install " + " ".join(requirement_text(p) for p in missing),),
                ),
            )
        )
    return found


def _pin_line(pin: Mapping[str, Any], installed: str | None) -> str:
    via = f" via {pin['via']}" if pin.get("via") else ""
    have = f"{installed} installed" if installed else "not installed"
    return f"{pin['name']}: {have}; torch pins {pin['specifier']}{via}"


def _triton_finding(torch_version: str, pin: Mapping[str, Any], installed: str | None) -> list[Finding]:
    name = pin["name"]
    command = f"pip install {requirement_text(pin)}"
    if installed is None:
        return [
            Finding(
                Status.WARN,
                f"torch {torch_version} requires {name}{pin['specifier']}, which is not installed: "
                "torch.compile cannot build GPU kernels",
                (f"torch's metadata: Requires-Dist: {pin['line']}",),
                Fix(f"Install the {name} release torch pins.", (command,)),
            )
        ]
    if not outside(installed, pin["specifier"]):
        return []
    return [
        Finding(
            Status.FAIL,
            f"{name} {installed} is installed, but torch {torch_version} requires {name}{pin['specifier']}",
            (
                f"torch's metadata: Requires-Dist: {pin['line']}",
                "torch.compile generates code for the triton release torch pins; another release fails "
                "at compile time",
            ),
            Fix(f"Install the {name} release torch {_public(torch_version)} requires.", (command,)),
        )
    ]


def evidence(torch: Mapping[str, Any], comps: Mapping[str, Any], ops: Mapping[str, Any]) -> list[str]:
    torch_version = str(torch.get("version") or "")
    lines: list[str] = []
    companions: Sequence[Mapping[str, Any]] = comps.get("companions") or []
    if not companions and "looked_for" not in comps:
        lines.append("companion packages: not known from these facts")
    elif not companions:
        lines.append(
            f"companion packages: none installed (looked for {', '.join(comps.get('looked_for') or [])})"
        )
    for companion in companions:
        text = f"{companion['name']} {companion['version']}"
        if companion.get("build_version") not in (None, companion["version"]):
            text += f" (build {companion['build_version']})"
        if companion["name"] in pairing.PAIRED:
            made_for = pairing.pair(companion["name"], str(companion["version"]), torch_version).made_for
            text += f", made for {made_for}" if made_for else ", not in the pairing table"
        lines.append(text)
    for attempt in ops.get("tries") or []:
        if _operator_error(attempt) is None:
            tried = attempt.get("operator") or f"import {attempt['module']}"
            lines.append(f"{tried}: runs")
    lines += _pin_evidence(torch_version, comps)
    return lines


def _pin_evidence(torch_version: str, comps: Mapping[str, Any]) -> list[str]:
    installed: Mapping[str, str] = comps.get("installed") or {}
    pins = [p for p in comps.get("pins") or [] if p.get("applies") and p.get("specifier")]
    lines = []
    if pins:
        fitting = [
            p for p in pins if installed.get(p["name"]) and satisfies(installed[p["name"]], p["specifier"])
        ]
        lines.append(
            f"torch's metadata pins {len(pins)} package(s) here; "
            f"{len(fitting)} installed at the pinned version"
        )
    triton = next((n for n in TRITON_NAMES if n in installed), None)
    if triton and not any(p["name"] in TRITON_NAMES for p in pins):
        row = pairing.row_for(torch_version)
        pinned = [p for p in (row.triton or ()) if p.get("specifier")] if row else []
        table = (
            f" (torch {row.torch} wheels for Linux x86_64 pin "
            + ", ".join(
                f"triton{p['specifier']}" + (f" where {p['marker']}" if p.get("marker") else "")
                for p in pinned
            )
            + ")"
            if row and pinned
            else " (the pairing table has no triton pin for this torch)"
            if row is None or row.triton is None
            else ""
        )
        lines.append(f"{triton} {installed[triton]} is installed; this torch's metadata pins none{table}")
    return lines


def summary(torch: Mapping[str, Any], comps: Mapping[str, Any]) -> str:
    """What fits, and what the tables cannot judge: never "fits" where the table has no answer."""
    companions = list(comps.get("companions") or [])
    if not companions and "looked_for" not in comps:
        return "companion packages not known from these facts"
    if not companions:
        return "no companion package installed"
    torch_version = str(torch.get("version") or "")
    fitting: list[str] = []
    unjudged: list[str] = []
    for companion in companions:
        text = f"{companion['name']} {companion['version']}"
        (fitting if _judged_fit(torch, torch_version, comps, companion) else unjudged).append(text)
    parts = []
    if fitting:
        parts.append(f"{', '.join(fitting)} fit torch {_public(torch_version)}")
    if unjudged:
        parts.append(f"{', '.join(unjudged)}: fit unknown (no table row or pin says)")
    return "; ".join(parts)


def _judged_fit(
    torch: Mapping[str, Any], torch_version: str, comps: Mapping[str, Any], companion: Mapping[str, Any]
) -> bool:
    name = companion["name"]
    version = str(companion["version"])
    if name in pairing.PAIRED:
        if any(r.get("applies") for r in companion.get("requires_torch") or []):
            return True  # its own metadata was checked against torch
        return pairing.pair(name, version, torch_version).fits is True
    if name in TRITON_NAMES:
        pins = [p for p in comps.get("pins") or [] if p.get("applies") and p["name"] == name]
        if pins:
            return all(satisfies(version, p["specifier"]) for p in pins)
        row = pairing.row_for(torch_version)
        table_pins = row.triton_pins(marker_environment(torch)) if row and row.exact else None
        return bool(table_pins) and all(satisfies(version, p["specifier"]) for p in table_pins or [])
    return bool(companion.get("requires_torch")) and not any(
        r.get("applies") and outside(torch_version, r["specifier"])
        for r in companion.get("requires_torch") or []
    )
