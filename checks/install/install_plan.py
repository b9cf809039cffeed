"""Which torch to install so that it runs here: a CUDA build, published for this OS, with kernels for these
GPUs, that this driver runs.

Every answer comes from ``builds.runnable`` (the one judgement of "which builds run here", shared with
``explain`` and ``triage``): the installed release's own builds first, then the newest release the tables
know. A release newer than the tables is said to be unknown, never fitted; a build whose arch list is not
known is never offered as one that runs. Pure functions of the facts: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from torchdoctor.checks.install import builds, cuda_compat, releases
from torchdoctor.checks.install.versions import release_line

OS_WORDS = {"linux-x86_64": "Linux x86_64", "linux-aarch64": "Linux aarch64", "windows-x86_64": "Windows"}


@dataclass(frozen=True)
class Plan:
    text: str
    commands: tuple[str, ...] = ()
    runs_here: bool = False
    """The commands install a build that this driver runs (not one that needs a driver update first)."""
    evidence: tuple[str, ...] = ()
    """Why: each build judged, and the table rows (with their sources) the plan was made from."""
    kind: str = ""
    """"runs", "driver" (a driver update first), "cpu" (no CUDA build has kernels), "unknown" or ""."""


def driver_os(torch: Mapping[str, Any]) -> str:
    """Whose driver table applies: Windows for Windows and for WSL (its driver is the Windows one)."""
    system = torch.get("os") or {}
    return "windows" if system.get("system") == "Windows" or system.get("wsl") else "linux"


def machine(torch: Mapping[str, Any]) -> str:
    """The wheel architecture to suggest, as the torch probe's interpreter reports it."""
    name = str(torch.get("machine") or "x86_64").lower()
    return "aarch64" if name in ("aarch64", "arm64") else "x86_64"


def wheel_os(torch: Mapping[str, Any]) -> str | None:
    """The wheel platform torch is installed for (WSL runs Linux wheels)."""
    system = (torch.get("os") or {}).get("system")
    return builds.wheel_os(str(system or ""), machine(torch))


def torch_release(torch: Mapping[str, Any]) -> str | None:
    version = torch.get("version") or (torch.get("distribution") or {}).get("version")
    return str(version).split("+")[0] if version else None


def ccs(gpus: Sequence[Mapping[str, Any]]) -> list[tuple[int, int]]:
    return [
        (int(g["compute_capability"][0]), int(g["compute_capability"][1]))
        for g in gpus
        if g.get("compute_capability")
    ]


def driver_cuda(nv: Mapping[str, Any], driver: Mapping[str, Any]) -> int | None:
    """The CUDA version the driver supports: NVML's; where NVML says nothing of the driver, the CUDA driver's
    own (``cuDriverGetVersion``, which torch quotes as "found version 11040")."""
    value = nv.get("cuda_driver_version")
    if not value and not nv.get("driver_version"):
        value = driver.get("driver_cuda_version")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def plan(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
    reason: str,
) -> Plan:
    return plan_for(
        torch_release(torch),
        wheel_os(torch),
        ccs(gpus),
        driver_cuda(nv, driver),
        nv.get("driver_version"),
        driver_os(torch),
        reason,
        python=torch.get("python"),
        installed=installed_build(
            torch.get("version"), wheel_os(torch), torch.get("cuda"), torch.get("arch_list")
        ),
    )


def installed_build(
    version: str | None, os_key: str | None, cuda: str | None, arch_list: Any
) -> builds.Build | None:
    """The installed CUDA build with the arch list it reports of itself, where the facts give one: it
    outranks the table's (a collect_env dump quotes torch's own "supports CUDA capabilities" warning)."""
    line = release_line(version)
    if not arch_list or not isinstance(arch_list, (list, tuple)) or line is None:
        return None
    build = builds.build_of(line, os_key, cuda)
    if build is None:
        return None
    source = f"the arch list torch {version} reports of itself ({' '.join(map(str, arch_list))})"
    return builds.with_arch_list(build, [str(a) for a in arch_list], source)


def plan_for(
    release: str | None,
    os_key: str | None,
    gpu_ccs: Sequence[tuple[int, int]],
    driver_cuda_version: int | None,
    driver_version: str | None,
    os_driver: str,
    reason: str = "",
    *,
    python: str | None = None,
    installed: builds.Build | None = None,
) -> Plan:
    """The plan for a machine described by its torch release (None: no torch installed), wheel platform,
    GPUs, driver and Python, and the installed build where its own arch list is known; ``reason`` leads
    the text.

    An installed release keeps its release where one of its own CUDA builds serves (changing the build is a
    smaller step than changing the release); without torch, the newest release with a build that runs here
    (and a wheel for this Python) is offered."""
    lead = reason.strip()
    if os_key is None:
        return Plan(_join(lead, "PyTorch publishes CUDA builds for Linux and Windows x86_64 only."))
    newest = builds.newest_line()
    line = release_line(release)
    judged = _Judged(os_key, gpu_ccs, driver_cuda_version, driver_version, os_driver, python, installed)
    if release is None or line is None:
        return judged.newest_fit(lead, other_release=False)
    if builds.newer_than_tables(release):
        unknown = (
            f"This torchdoctor does not know torch {line} yet (its tables end at torch {newest}): which CUDA "
            f"builds of torch {line} exist, and which GPUs they have kernels for, is not known here; a newer "
            "torchdoctor can tell."
        )
        offer = judged.newest_fit("", other_release=False)
        if offer.kind != "runs":
            return Plan(_join(lead, unknown), (), False, offer.evidence)
        what = f" What can be said: {offer.text[0].lower()}{offer.text[1:]}"
        return Plan(_join(lead, unknown + what), offer.commands, offer.runs_here, offer.evidence)
    if line not in builds.known_lines():
        oldest = builds.known_lines()[0]
        why = f"torch {release} is older than the releases these tables know (torch {oldest} on)."
        current = judged.newest_fit(_join(lead, why), other_release=True)
        if current.kind == "cpu":  # the CPU build of the user's own release installs as well
            return Plan(
                current.text, (cuda_compat.install_command(release, None),), False, current.evidence, "cpu"
            )
        return current
    own = judged.offer(release, lead, other_release=False)
    if own.kind in ("runs", "driver"):
        return own
    if own.kind == "arch_unknown":
        newer = judged.newest_fit("", other_release=True, skip_line=line)
        if newer.kind != "runs":
            return own
        return Plan(
            f"{own.text} If it has none for them: {newer.text[0].lower()}{newer.text[1:]}",
            own.commands,
            False,
            (*own.evidence, *newer.evidence),
            own.kind,
        )
    why = (
        f"No CUDA build of torch {line} for {OS_WORDS[os_key]} is known to run here with kernels for "
        "these GPUs."
    )
    newer = judged.newest_fit(_join(lead, why), other_release=True, skip_line=line)
    if newer.kind in ("runs", "driver"):
        return Plan(newer.text, newer.commands, newer.runs_here, (*own.evidence, *newer.evidence), newer.kind)
    return own


def _join(*parts: str) -> str:
    return " ".join(part.strip() for part in parts if part.strip())


_OTHER_RELEASE = (
    " (another torch release than the one installed: install the torchvision and torchaudio "
    "that pair with it)"
)


@dataclass(frozen=True)
class _Judged:
    os_key: str
    gpu_ccs: Sequence[tuple[int, int]]
    driver_cuda_version: int | None
    driver_version: str | None
    os_driver: str
    python: str | None = None
    installed: builds.Build | None = None

    def verdicts(self, line: str) -> list[builds.Verdict] | None:
        return builds.runnable(
            line,
            self.os_key,
            self.gpu_ccs,
            self.driver_cuda_version,
            self.driver_version,
            self.os_driver,
            self.installed,
        )

    def has_wheel(self, release: str) -> bool:
        """Whether the index has a wheel of this release for this Python here (True when not known)."""
        support = releases.python_support(release, self.python, self.os_key)
        return support is None or support.supported is not False

    def newest_fit(self, lead: str, *, other_release: bool, skip_line: str | None = None) -> Plan:
        """The newest release with a wheel for this Python and a CUDA build that runs here with kernels
        for these GPUs; where none does, what the newest release for this Python needs (a driver update, or
        the CPU build)."""
        passed: list[str] = []
        for line in reversed(builds.known_lines()):
            release = builds.newest_release(line)
            if release is None or line == skip_line or not self.has_wheel(release):
                continue
            found = self.offer(release, lead, other_release=other_release, only_runs=True)
            if found.kind == "runs":
                kernels = " with kernels for these GPUs" if self.gpu_ccs else ""
                why = (
                    f"torch {', '.join(passed)}: no CUDA build for {OS_WORDS[self.os_key]} known to run "
                    f"here{kernels}"
                )
                return Plan(found.text, found.commands, True, (why,) * bool(passed) + found.evidence, "runs")
            passed.append(release)
        fitting = [r for r in map(builds.newest_release, builds.known_lines()) if r and self.has_wheel(r)]
        newest = (
            fitting[-1] if fitting else builds.newest_release(builds.newest_line()) or builds.newest_line()
        )
        return self.offer(newest, lead, other_release=other_release)

    def offer(self, release: str, lead: str, *, other_release: bool, only_runs: bool = False) -> Plan:
        """What to install of ``release``: a build that runs here, else (unless ``only_runs``) a build this
        driver runs whose arch list is not known, or what would run after a driver update."""
        line = release_line(release) or release
        where = OS_WORDS[self.os_key]
        verdicts = self.verdicts(line)
        if verdicts is None:
            return Plan(
                _join(lead, f"Which CUDA builds torch {line} published for {where} is not in these tables.")
            )
        evidence = tuple(
            f"torch {line} for {where}, CUDA {v.build.cuda}: {v.status.replace('_', ' ')} ({v.reason}); "
            f"source: {v.build.source}"
            for v in verdicts
        )
        other = _OTHER_RELEASE if other_release else ""
        best = verdicts[0] if verdicts else None
        if best is not None and best.status in (builds.RUNS, builds.MINOR_COMPAT):
            via = " through minor-version compatibility" if best.status == builds.MINOR_COMPAT else ""
            kernels = " and which has kernels for these GPUs" if self.gpu_ccs else ""
            text = (
                f"Install torch {release} built for CUDA {best.build.cuda}, which this driver runs{via}"
                f"{kernels}{other}."
            )
            command = cuda_compat.install_command(release, best.build.cuda)
            return Plan(_join(lead, text), (command,), True, evidence, "runs")
        if only_runs:
            return Plan(_join(lead, "No build runs here."), (), False, evidence)
        if best is not None and best.status == builds.ARCH_UNKNOWN:
            text = (
                f"Install torch {release} built for CUDA {best.build.cuda}, which this driver runs{other}; "
                f"whether it has kernels for these GPUs is not known here: no source in these tables gives "
                "its arch list."
            )
            command = cuda_compat.install_command(release, best.build.cuda)
            return Plan(_join(lead, text), (command,), False, evidence, "arch_unknown")
        return self._no_build_runs(release, lead, verdicts, evidence, other)

    def _no_build_runs(
        self,
        release: str,
        lead: str,
        verdicts: Sequence[builds.Verdict],
        evidence: tuple[str, ...],
        other: str,
    ) -> Plan:
        line = release_line(release) or release
        where = OS_WORDS[self.os_key]
        waiting = [v for v in verdicts if v.status in (builds.DRIVER_TOO_OLD, builds.DRIVER_NOT_SHOWN)]
        if waiting:
            chosen = min(waiting, key=lambda v: cuda_compat.parse_version(v.build.cuda) or ())
            needed = chosen.required_driver or cuda_compat.minor_compat_floor(
                chosen.build.cuda, self.os_driver
            )
            ended = self._driver_ended(needed)
            if ended is not None:
                return self._cpu_only(release, lead, evidence, ended)
            update = f"{needed} or later" if needed else cuda_compat.unknown_minimum(chosen.build.cuda)
            if chosen.status == builds.DRIVER_TOO_OLD:
                text = (
                    f"Update the NVIDIA driver to {update}, then install torch {release} built for CUDA "
                    f"{chosen.build.cuda}, which has kernels for these GPUs{other}."
                )
            else:  # a report that shows the GPUs and not the driver: what the build needs, not an update
                text = (
                    f"Install torch {release} built for CUDA {chosen.build.cuda}, which has kernels for "
                    f"these GPUs{other}; it needs an NVIDIA driver of {update} (the driver's version is not "
                    "known here)."
                )
            command = cuda_compat.install_command(release, chosen.build.cuda)
            return Plan(_join(lead, text), (command,), False, evidence, "driver")
        if any(v.status == builds.UNKNOWN for v in verdicts):
            text = (
                f"Whether a CUDA build of torch {line} for {where} has kernels for these GPUs is not known: "
                "no source in these tables gives its arch list."
            )
            return Plan(_join(lead, text), (), False, evidence, "unknown")
        ended = next((e for cc in self.gpu_ccs if (e := _ended_for(cc)) is not None), None)
        return self._cpu_only(release, lead, evidence, ended)

    def _driver_ended(self, needed: str | None) -> str | None:
        return driver_ended(self.gpu_ccs, needed)

    def _cpu_only(self, release: str, lead: str, evidence: tuple[str, ...], ended: str | None) -> Plan:
        listed = ", ".join(sorted({f"CC {major}.{minor}" for major, minor in self.gpu_ccs}))
        ends = [cuda_compat.last_driver_for(cc) for cc in self.gpu_ccs]
        evidence += tuple(f"source: {e['source']}" for e in ends if e and ended)
        line = release_line(release) or release
        text = (
            f"No CUDA build of torch {line} has kernels for {listed}"
            + (f"; {ended}" if ended else "")
            + ". Use the CPU build, or build torch from source with a CUDA that supports this GPU."
        )
        return Plan(_join(lead, text), (cuda_compat.install_command(release, None),), False, evidence, "cpu")


def driver_ended(gpu_ccs: Sequence[tuple[int, int]], needed: str | None) -> str | None:
    """Why no driver update can help: a GPU whose last supported driver branch is older than ``needed`` (a
    driver version, or None: newer than any the GPU's last branch, as for a CUDA the tables do not know)."""
    want = cuda_compat.parse_version(needed) if needed else None
    for cc in gpu_ccs:
        last = cuda_compat.last_driver_for(cc)
        branch = cuda_compat.parse_version(last["branch"]) if last else None
        if last is not None and branch is not None and (want is None or want[:1] > branch[:1]):
            return _ended_for(cc)
    return None


def _ended_for(cc: tuple[int, int]) -> str | None:
    last = cuda_compat.last_driver_for(cc)
    if last is None:
        return None
    family = f"{cc[0]}.{cc[1]}" if f"{cc[0]}.{cc[1]}" in cuda_compat.LAST_DRIVER_BRANCH else f"{cc[0]}.x"
    return (
        f"NVIDIA's last driver for CC {family} GPUs is the R{last['branch']} branch "
        f"(CUDA {last['cuda']}), so no driver update brings a newer CUDA to this GPU"
    )
