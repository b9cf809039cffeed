"""Pure functions that turn what the index says into the rows of the data tables. No I/O."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tools import wheel_names

PIN_PLATFORMS = ("linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-arm64")
OS_KEYS = ("linux-x86_64", "linux-aarch64", "windows-x86_64")
_PINNED_PREFIXES = ("nvidia-", "triton", "pytorch-triton", "cuda-toolkit", "cuda-bindings")
_VERSION_CUDA = re.compile(r"^cuda(?:\s*:\s*[\w\[\]]+)?\s*=\s*'(\d+\.\d+)'", re.MULTILINE)
_BUILD_HOSTS = {"linux-x86_64": "x86_64", "windows-x86_64": "x86_64", "linux-aarch64": "aarch64"}


def wheel_version(filename: str) -> str:
    return str(wheel_names.parse(filename).version)


def at_least(release: str, minimum: str) -> bool:
    return Version(release) >= Version(minimum)


def wheels_by_release(files: Iterable[Mapping[str, Any]], minimum: str) -> dict[str, list[dict[str, Any]]]:
    """Stable releases from ``minimum`` on -> their wheel files (a malformed wheel name raises)."""
    found: dict[Version, list[dict[str, Any]]] = {}
    for entry in files:
        name = str(entry["filename"])
        if not name.endswith(".whl"):
            continue
        wheel = wheel_names.parse(name)
        if wheel.version.is_prerelease or wheel.version.is_devrelease or wheel.version.local:
            continue
        if wheel.version < Version(minimum):
            continue
        found.setdefault(wheel.version, []).append({**entry, "wheel": wheel})
    return {str(version): found[version] for version in sorted(found)}


def tags_row(wheels: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The Pythons each platform has wheels for, and the oldest macOS the macOS wheels install on."""
    python: dict[str, set[str]] = {}
    macos: dict[str, str] = {}
    for entry in wheels:
        wheel: wheel_names.Wheel = entry["wheel"]
        if wheel.platform is None:
            continue
        python.setdefault(wheel.platform, set()).update(wheel.pythons)
        if wheel.macos_min:
            old = macos.get(wheel.platform)
            if old is None or Version(wheel.macos_min) < Version(old):
                macos[wheel.platform] = wheel.macos_min
    row: dict[str, Any] = {
        "python": {
            platform: sorted(found, key=wheel_names.python_key) for platform, found in sorted(python.items())
        }
    }
    if macos:
        row["macos_min"] = dict(sorted(macos.items()))
    return row


def metadata_candidates(wheels: Sequence[Mapping[str, Any]], platform: str) -> list[dict[str, Any]]:
    """The platform's wheels, the ones likeliest to have a metadata file first (a common CPython)."""
    mine = [dict(w) for w in wheels if w["wheel"].platform == platform]

    def preference(entry: Mapping[str, Any]) -> tuple[int, str]:
        pythons = entry["wheel"].pythons
        free = any(p.endswith("t") for p in pythons)
        return (0 if "3.12" in pythons else 1 if not free else 2, entry["filename"])

    return sorted(mine, key=preference)


def pinned_lines(lines: Iterable[str]) -> list[str]:
    """The Requires-Dist lines of triton, cuda-toolkit and the nvidia-* wheels, normalized."""
    kept = []
    for line in lines:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name).startswith(_PINNED_PREFIXES):
            kept.append(str(requirement))
    return kept


def torch_requirement(lines: Iterable[str]) -> str | None:
    """The specifier a companion's metadata puts on torch (``==2.13.0``, ``>=2.11``)."""
    for line in lines:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name) == "torch" and requirement.marker is None:
            return str(requirement.specifier) or None
    return None


def parse_code_cc(source: str) -> dict[str, dict[str, list[int]]] | None:
    """``PYTORCH_RELEASES_CODE_CC`` of a ``torch/cuda/__init__.py``, read without running it."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        target: ast.expr | None = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == "PYTORCH_RELEASES_CODE_CC":
            value = getattr(node, "value", None)
            try:
                table = ast.literal_eval(value) if value is not None else None
            except ValueError:
                return None
            if not isinstance(table, dict):
                return None
            parsed: dict[str, dict[str, list[int]]] = {}
            for cuda, hosts in sorted(table.items(), key=lambda item: Version(str(item[0]))):
                # Older releases keep one set per CUDA version, for every host.
                by_host = hosts if isinstance(hosts, dict) else {"any": hosts}
                parsed[str(cuda)] = {
                    str(h): sorted(int(cc) for cc in ccs) for h, ccs in sorted(by_host.items())
                }
            return parsed
    return None


def parse_version_cuda(text: str) -> str | None:
    found = _VERSION_CUDA.search(text)
    return found[1] if found else None


def wheels_table(rows: Mapping[str, Any], index: str) -> dict[str, Any]:
    return {
        "source": (
            f"Generated by tools/update_tables.py from the package index ({index}): per torch release, the "
            "Pythons and platforms of its wheels (file names), the oldest macOS of its macOS wheels "
            "(platform tag), the Requires-Dist pins of triton, cuda-toolkit and the nvidia-* wheels per "
            "platform (core metadata), the CUDA of the index's own Linux build (torch/version.py) and "
            "torch's table of the compute capabilities of each CUDA build of the release "
            "(PYTORCH_RELEASES_CODE_CC in torch/cuda/__init__.py, where the release has it). Each row names "
            "the files it was read from."
        ),
        "releases": dict(rows),
    }


def _companion_for(
    torch: str, releases: Mapping[str, Mapping[str, Any]], forward_from: str | None
) -> str | None:
    """The companion release made for this torch: one whose torch requirement holds it, with its lower bound
    on the same release line (a torchvision is built for one torch line); from ``forward_from`` on, the newest
    release whose requirement holds it (built on torch's stable ABI)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    line = ".".join(torch.split(".")[:2])
    same_line, forward = [], []
    for release, entry in releases.items():
        spec = entry.get("requires_torch")
        if not spec:
            continue
        try:
            specifiers = SpecifierSet(spec)
        except InvalidSpecifier:
            continue
        if Version(torch) not in specifiers:
            continue
        bounds = [s.version for s in specifiers if s.operator in ("==", ">=", "~=", "===")]
        if any(".".join(b.split(".")[:2]) == line for b in bounds):
            same_line.append(release)
        elif forward_from is not None and Version(release) >= Version(forward_from):
            forward.append(release)
    exact = [r for r in same_line if releases[r].get("requires_torch") == f"=={torch}"]
    for group in (exact, same_line, forward):
        if group:
            return max(group, key=Version)
    return None


def _triton_pins(requires: Mapping[str, Sequence[str]]) -> list[dict[str, Any]]:
    pins = []
    for line in requires.get("linux-x86_64") or []:
        requirement = Requirement(line)
        if canonicalize_name(requirement.name) in ("triton", "pytorch-triton"):
            pins.append(
                {
                    "name": canonicalize_name(requirement.name),
                    "specifier": str(requirement.specifier),
                    "marker": None if requirement.marker is None else str(requirement.marker),
                }
            )
    return pins


def companions_table(
    torch_rows: Mapping[str, Mapping[str, Any]],
    companions: Mapping[str, Mapping[str, Mapping[str, Any]]],
    triton_pythons: Mapping[str, Sequence[str]],
    index: str,
    before: Mapping[str, Any],
) -> dict[str, Any]:
    forward = dict(before.get("forward_compatible_from") or {})
    rows: dict[str, Any] = {}
    for release, entry in (before.get("releases") or {}).items():
        rows[release] = dict(entry)
    for torch, row in torch_rows.items():
        if Version(torch) < Version("2.0.0"):
            continue
        pairs = {}
        read_from = []
        for name in ("torchvision", "torchaudio"):
            found = _companion_for(torch, companions.get(name, {}), forward.get(name))
            pairs[name] = found
            if found is not None:
                spec = companions[name][found]["requires_torch"]
                read_from.append(f"{name} {found} requires torch{spec} ({companions[name][found]['from']})")
        requires = row.get("requires") or {}
        triton = _triton_pins(requires) if "linux-x86_64" in requires else None
        rows[torch] = {
            **pairs,
            "triton": triton,
            "source": "package index metadata: "
            + "; ".join([*read_from, f"torch {torch}'s Requires-Dist ({_linux_source(row)})"]),
        }
    return {
        "source": (
            f"Generated by tools/update_tables.py. From torch 2.0 on, from the package index ({index}): the "
            "torchvision and torchaudio release whose Requires-Dist on torch holds that torch release (its "
            "lower bound on the same release line; from the release forward_compatible_from names on, built "
            "on torch's stable ABI, the newest release that holds it), and torch's own triton pins on Linux "
            "x86_64 with their markers (null where the index has no metadata of that wheel). Releases before "
            "2.0 and "
            "forward_compatible_from come from tools/sources/companions.json, each row with its "
            "source. triton_python: the CPython versions of each triton release's Linux x86_64 wheels."
        ),
        "forward_compatible_from": forward,
        "forward_compatible_source": before.get("forward_compatible_source"),
        "releases": rows,
        "triton_python": {release: list(pythons) for release, pythons in triton_pythons.items()},
    }


def _linux_source(row: Mapping[str, Any]) -> str:
    source = str(row.get("source") or "")
    return source.partition("metadata of ")[2].partition(";")[0] or "the index's file list"


def builds_table(builds: Mapping[str, Any], torch_rows: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Per release line and OS, its CUDA builds with their compute capabilities and where each was read."""
    lines: dict[str, Any] = {}
    for line, entry in builds["lines"].items():
        code = _newest_code_cc(line, torch_rows)
        out: dict[str, Any] = {}
        for os_key in OS_KEYS:
            given = (entry.get("os") or {}).get(os_key)
            if given is None:
                continue
            cells: dict[str, Any] = {}
            for cuda in given["cuda"]:
                cells[cuda] = _build_cell(cuda, os_key, entry, code, given)
            out[os_key] = {"builds": cells, "source": given["source"]}
        lines[line] = {"os": out}
        for key in ("mps_macos_min", "numpy_2"):
            if key in entry:
                lines[line][key] = entry[key]
    return {
        "source": (
            "Generated by tools/update_tables.py from tools/sources/builds.json (the CUDA builds each "
            "release line published per OS, each with the PyTorch pull request, file or release note it was "
            "read from) and the package index (PYTORCH_RELEASES_CODE_CC of the release's own wheel: the "
            "compute capabilities of each CUDA build per host architecture, which torch's own check uses "
            "and which credits no PTX). A build's ccs is null where no source gives its arch list: it is "
            "then unknown."
        ),
        "lines": lines,
    }


def _newest_code_cc(
    line: str, torch_rows: Mapping[str, Mapping[str, Any]]
) -> tuple[str, dict[str, Any]] | None:
    same = [r for r in torch_rows if ".".join(r.split(".")[:2]) == line and torch_rows[r].get("code_cc")]
    if not same:
        return None
    newest = max(same, key=Version)
    return newest, torch_rows[newest]["code_cc"]


def _build_cell(
    cuda: str,
    os_key: str,
    entry: Mapping[str, Any],
    code: tuple[str, dict[str, Any]] | None,
    given: Mapping[str, Any],
) -> dict[str, Any]:
    given_arch = (entry.get("arch") or {}).get(cuda) or {}
    arch = given_arch.get(os_key) or given_arch.get(_BUILD_HOSTS[os_key])
    if arch is not None:
        return {"ccs": arch["ccs"], "ptx": arch.get("ptx", []), "source": arch["source"]}
    host = _BUILD_HOSTS[os_key]
    hosts = code[1].get(cuda, {}) if code is not None else {}
    key = host if host in hosts else "any" if "any" in hosts else None
    if code is not None and key is not None:
        where = f"[{cuda!r}][{host!r}]" if key == host else f"[{cuda!r}] (one set for every host)"
        return {
            "ccs": hosts[key],
            "ptx": [],
            "source": f"PYTORCH_RELEASES_CODE_CC{where} in torch/cuda/__init__.py of torch {code[0]} "
            "(package index)",
        }
    return {"ccs": None, "ptx": None, "source": "no source read gives this build's arch list"}


def builds_source_problem(data: Any) -> str | None:
    """What is wrong with a builds source file, or None."""
    if not isinstance(data, dict) or not isinstance(data.get("lines"), dict):
        return "no 'lines' object"
    for line, entry in data["lines"].items():
        for os_key, given in (entry.get("os") or {}).items():
            if os_key not in OS_KEYS:
                return f"line {line}: unknown OS {os_key!r}"
            if not isinstance(given.get("cuda"), list) or not given.get("source"):
                return f"line {line} {os_key}: needs a 'cuda' list and a 'source'"
        for cuda, hosts in (entry.get("arch") or {}).items():
            for host, arch in hosts.items():
                if host not in (*OS_KEYS, *_BUILD_HOSTS.values()):
                    return f"line {line} CUDA {cuda}: unknown host or OS {host!r}"
                if not isinstance(arch.get("ccs"), list) or not arch.get("source"):
                    return f"line {line} CUDA {cuda} {host}: an arch entry needs 'ccs' and 'source'"
    return None


def dump(table: Mapping[str, Any]) -> str:
    """JSON with one row per line inside each table of rows, so a new release is a readable diff."""
    parts = ["{"]
    items = list(table.items())
    for n, (key, value) in enumerate(items):
        comma = "," if n < len(items) - 1 else ""
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            parts.append(f"  {json.dumps(key)}: {{")
            rows = list(value.items())
            for m, (row_key, row) in enumerate(rows):
                row_comma = "," if m < len(rows) - 1 else ""
                parts.append(f"    {json.dumps(row_key)}: {json.dumps(row, ensure_ascii=False)}{row_comma}")
            parts.append(f"  }}{comma}")
        else:
            parts.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    parts.append("}")
    return "\n".join(parts) + "\n"


def version_or_none(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None
