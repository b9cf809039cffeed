"""The rules of torch.stack's companion judge, one boundary each: which build a label or a fact names, what
a fix installs and from which index, what a dump's facts are judged by, and what is said when nothing can be.

Facts go through JSON first, as a saved report's do. Versions are published ones: torch 2.5.1's wheels pin
triton==3.1.0 on Linux x86_64 below Python 3.13 (its METADATA, in the pairing table); torch 1.13.1 pins no
triton; torchvision 0.20.1 is torch 2.5.1's (pytorch/vision README); flash-attn 2.6.3 and xformers
0.0.28.post3 are releases on PyPI; AMD's rocm/pytorch images carry source builds such as 2.4.0a0+git96dd291.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from torchdoctor.checks.install import companions_judge
from torchdoctor.checks.install.versions import outside
from torchdoctor.model import Status

CU124 = "https://download.pytorch.org/whl/cu124"


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _torch(**changes: Any) -> dict[str, Any]:
    """A CUDA 12.4 torch on Linux x86_64, as a collect_env dump of one describes it."""
    torch = {
        "version": "2.5.1+cu124",
        "flavor": "cuda",
        "cuda": "12.4",
        "python": "3.11.9",
        "machine": "x86_64",
        "os": {"system": "Linux"},
    }
    return _json({**torch, **changes})


# --- which build: the label of a version, or the facts of torch -------------------------------------------


@pytest.mark.parametrize(
    ("torch", "flavor"),
    [
        ({"flavor": "cuda", "cuda": "12.4", "version": "2.5.1+cu124"}, ("cuda", "12.4")),
        # no torch.version.cuda in the facts: the label still says which CUDA
        ({"flavor": "cuda", "cuda": None, "version": "2.5.1+cu124"}, ("cuda", "12.4")),
        # torch.version.hip of a ROCm build names the patch and the build too; the label says 6.2
        ({"flavor": "rocm", "hip": "6.2.41133-dd7f95766", "version": "2.5.1+rocm6.2"}, ("rocm", "6.2")),
        # a source build has no index label: only torch.version.hip says which ROCm
        ({"flavor": "rocm", "hip": "6.2.41133-dd7f95766", "version": "2.4.0a0+git96dd291"}, ("rocm", "6.2")),
        ({"flavor": None, "version": "2.5.1+rocm6.2"}, ("rocm", "6.2")),
        ({"flavor": None, "version": "2.5.1+rocm6.2.4"}, ("rocm", "6.2.4")),
        ({"flavor": None, "version": "2.5.1+xpu"}, ("xpu", None)),
        ({"flavor": None, "version": "2.5.1+cpu"}, ("cpu", None)),
        ({"flavor": None, "version": "2.5.1+cu118"}, ("cuda", "11.8")),
        # PyPI's macOS wheel has no label; the facts say it is CPU-only
        ({"flavor": "cpu", "version": "2.5.1"}, ("cpu", None)),
        ({"flavor": "xpu", "version": "2.5.1+xpu"}, ("xpu", None)),
        ({"flavor": None, "version": "2.5.1"}, None),
        ({"flavor": None, "version": "2.5.1+git96dd291"}, None),
    ],
)
def test_the_build_of_torch_comes_from_its_facts_else_from_its_index_label(
    torch: dict[str, Any], flavor: tuple[str, str | None] | None
) -> None:
    assert companions_judge.torch_flavor(_json(torch)) == flavor


# --- what a fix installs, and from where -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "command"),
    [
        # the table names a release line: pip picks its patch release while torch is held
        (
            ("torchvision", "0.8", "1.7.0+cu110"),
            'pip install "torchvision==0.8.*" "torch==1.7.0" --index-url ',
        ),
        # a reinstall keeps --no-deps, so it cannot hold torch: the line as given
        (
            ("torchvision", "0.8", "1.7.0+cu110", True),
            "pip install --force-reinstall --no-deps torchvision==0.8 --index-url ",
        ),
        # three parts or more name one release
        (("torchvision", "0.20.1", "2.5.1+cu124"), "pip install torchvision==0.20.1 --index-url "),
        (("torchvision", "0.2.2.1", "1.0.0+cu100"), "pip install torchvision==0.2.2.1 --index-url "),
    ],
)
def test_only_a_release_line_of_a_paired_companion_is_installed_as_a_wildcard(
    args: tuple[Any, ...], command: str
) -> None:
    made = companions_judge.install_command(*args)
    assert made.startswith(command)
    assert made.endswith("/whl/" + args[2].partition("+")[2])


@pytest.mark.parametrize(
    ("name", "version", "command"),
    [
        # download.pytorch.org/whl/cu124 holds xformers (its README: pip install -U xformers --index-url ...)
        (
            "xformers",
            "0.0.28.post3",
            f"pip install --force-reinstall --no-deps xformers==0.0.28.post3 --index-url {CU124}",
        ),
        # flash-attn is on PyPI only, and builds against the torch installed (its README)
        (
            "flash-attn",
            "2.6.3",
            "pip install --force-reinstall --no-deps --no-build-isolation flash-attn==2.6.3",
        ),
        # deepspeed is on PyPI only
        ("deepspeed", "0.15.4", "pip install --force-reinstall --no-deps deepspeed==0.15.4"),
        # PyPI's "apex" is another project: NVIDIA's is built from its repository
        ("apex", "0.1", companions_judge.APEX_BUILD),
    ],
)
def test_a_reinstall_comes_from_the_index_that_holds_the_package(
    name: str, version: str, command: str
) -> None:
    assert companions_judge.install_command(_json(name), version, "2.5.1+cu124", reinstall=True) == command


def test_beside_a_nightly_torch_only_a_package_of_torchs_index_comes_from_its_nightly_index() -> None:
    nightly = "2.6.0.dev20241112+cu124"
    assert (
        companions_judge.install_command("torchvision", "", nightly)
        == "pip install --pre torchvision --index-url https://download.pytorch.org/whl/nightly/cu124"
    )
    assert companions_judge.install_command("flash-attn", "2.6.3", nightly) == (
        "pip install --no-build-isolation flash-attn==2.6.3"
    )


# --- a companion that does not run -------------------------------------------------------------------------


def _companion(name: str, version: str, build: str | None = None, **more: Any) -> dict[str, Any]:
    return {"name": name, "version": version, "build_version": build or version, "requires_torch": [], **more}


def test_a_missing_extension_module_of_the_companion_itself_is_a_broken_install_not_a_missing_package() -> (
    None
):
    # flash-attn's compiled part is its own module flash_attn_2_cuda (what OPERATOR_TRIES imports)
    attempt = {
        "name": "flash-attn",
        "module": "flash_attn_2_cuda",
        "import_error": "ModuleNotFoundError: No module named 'flash_attn_2_cuda'",
    }
    comps = {"companions": [_companion("flash-attn", "2.6.3")], "installed": {"flash-attn": "2.6.3"}}

    (finding,) = companions_judge.findings(_torch(), _json(comps), _json({"tries": [attempt]}))

    assert finding.summary.startswith("flash-attn 2.6.3 cannot run its compiled operators with torch 2.5.1")
    assert finding.fix is not None
    assert finding.fix.commands == (
        "pip install --force-reinstall --no-deps --no-build-isolation flash-attn==2.6.3",
    )


def test_a_module_the_companion_imports_that_is_not_installed_is_named_with_its_package() -> None:
    attempt = {
        "name": "torchvision",
        "module": "torchvision",
        "import_error": "ModuleNotFoundError: No module named 'PIL'",
    }
    comps = {"companions": [_companion("torchvision", "0.20.1", "0.20.1+cu124")], "installed": {}}

    (finding,) = companions_judge.findings(_torch(), _json(comps), _json({"tries": [attempt]}))

    assert finding.summary == (
        "torchvision 0.20.1 does not import: the module PIL it needs is not installed (package pillow)"
    )


def test_a_failed_operator_is_quoted_by_the_operator_and_its_message_cut_at_120_characters() -> None:
    message = "operator torchvision::nms does not exist" + " (more)" * 20
    attempt = {
        "name": "torchvision",
        "module": "torchvision",
        "operator": "torchvision.ops.nms",
        "operator_error": f"RuntimeError: {message}",
    }
    comps = {"companions": [_companion("torchvision", "0.20.1", "0.20.1+cu124")], "installed": {}}

    (finding,) = companions_judge.findings(_torch(), _json(comps), _json({"tries": [attempt]}))

    assert finding.summary.endswith(f': "{message[:120]}"')
    assert f"torchvision.ops.nms: RuntimeError: {message}" in finding.details
    assert finding.fix is not None
    assert finding.fix.commands == (
        f"pip install --force-reinstall --no-deps torchvision==0.20.1 --index-url {CU124}",
    )


def test_a_build_of_torchs_own_flavor_adds_no_build_line_to_a_failure() -> None:
    attempt = {"name": "torchvision", "module": "torchvision", "operator_error": "RuntimeError: boom"}
    comps = {"companions": [_companion("torchvision", "0.20.1", "0.20.1+cu124")], "installed": {}}

    (finding,) = companions_judge.findings(_torch(), _json(comps), _json({"tries": [attempt]}))

    assert not any("build;" in line for line in finding.details)


def test_a_pairing_mismatch_puts_the_table_row_first_in_the_evidence() -> None:
    attempt = {"name": "torchvision", "module": "torchvision", "operator_error": "RuntimeError: boom"}
    comps = {"companions": [_companion("torchvision", "0.19.1", "0.19.1+cu118")], "installed": {}}

    (finding,) = companions_judge.findings(_torch(), _json(comps), _json({"tries": [attempt]}))

    assert finding.details[0] == "pairing table: torch 2.5.1+cu124 -> torchvision 0.20.1 (row 2.5.1)"
    assert finding.details[1:] == (
        "torchvision: RuntimeError: boom",
        "torchvision 0.19.1+cu118 (None) is a CUDA 11.8 build; torch 2.5.1+cu124 is CUDA 12.4",
    )


def test_another_patch_release_of_torch_is_judged_by_the_nearest_row_of_its_line() -> None:
    comps = {"companions": [_companion("torchvision", "0.19.1")], "installed": {}}
    (finding,) = companions_judge.findings(_torch(version="2.5.0+cu124"), _json(comps), {})
    assert finding.details[0] == ("pairing table: torch 2.5.0+cu124 -> torchvision 0.20.0 (row 2.5.0)")
    (finding,) = companions_judge.findings(_torch(version="2.5.2+cu124"), _json(comps), {})
    assert finding.details[0].endswith("(row 2.5.1, the nearest release of the 2.5 line)")


@pytest.mark.parametrize(
    ("own", "theirs"),
    [("0.20.1+xpu", "2.5.1+cpu"), ("0.20.1+cpu", "2.5.1+xpu"), ("0.20.1+cpu", "2.5.1+cu124")],
)
def test_builds_of_two_flavors_clash_whichever_side_has_which(own: str, theirs: str) -> None:
    comps = {"companions": [_companion("torchvision", "0.20.1", own)], "installed": {}}
    flavor = "cuda" if "cu" in theirs else theirs.partition("+")[2]

    (finding,) = companions_judge.findings(
        _json({"version": theirs, "flavor": flavor, "cuda": "12.4" if flavor == "cuda" else None}),
        _json(comps),
        {},
    )

    assert finding.status is Status.FAIL
    assert f"torchvision {own} is a" in finding.summary
    assert finding.fix is not None and finding.fix.text.endswith(
        {"cpu": "CPU-only torch.", "xpu": "XPU torch.", "cuda": "CUDA 12.4 torch."}[flavor]
    )


def test_of_the_companions_requirements_on_torch_the_ones_torch_is_outside_are_named() -> None:
    requires = [
        {"specifier": ">=2.0", "applies": True, "line": "torch>=2.0"},
        {"specifier": "<2.1", "applies": True, "line": "torch<2.1"},
    ]
    comps = {"companions": [_companion("xformers", "0.0.22", requires_torch=requires)], "installed": {}}

    (finding,) = companions_judge.findings(_torch(), _json(comps), {})

    assert finding.summary == "xformers 0.0.22 requires torch<2.1 (its metadata), but torch is 2.5.1+cu124"


def test_torchs_version_may_come_from_the_companion_facts_alone() -> None:
    comps = {
        "torch": {"version": "2.5.1+cu124"},
        "companions": [_companion("torchvision", "0.19.1")],
        "installed": {},
    }
    (finding,) = companions_judge.findings(_json({"flavor": "cuda"}), _json(comps), {})
    assert finding.summary.startswith(
        "torchvision 0.19.1 is made for torch 2.4; torch 2.5.1+cu124 pairs with"
    )


def test_triton_among_the_companions_does_not_end_the_judging_of_the_ones_after_it() -> None:
    # the probe lists companions by name: triton sorts before xformers
    requires = [{"specifier": "==2.4.1", "applies": True, "line": "torch==2.4.1"}]
    comps = {
        "companions": [
            _companion("triton", "3.1.0"),
            _companion("xformers", "0.0.28", requires_torch=requires),
        ],
        "installed": {"triton": "3.1.0"},
    }
    (finding,) = companions_judge.findings(_torch(), _json(comps), {})
    assert finding.summary.startswith("xformers 0.0.28 requires torch==2.4.1")


# --- nvidia-* wheels of another CUDA -----------------------------------------------------------------------


def test_a_cuda_12_wheel_beside_a_cuda_11_torch_is_named_too() -> None:
    # jax[cuda12] or tensorflow[and-cuda] installs nvidia-*-cu12 wheels beside a cu118 torch
    torch = {"version": "2.1.0+cu118", "flavor": "cuda", "cuda": "11.8"}
    (finding,) = companions_judge.findings(_json(torch), {"installed": {"nvidia-cudnn-cu12": "8.9.2.26"}}, {})
    assert finding.summary.startswith("1 nvidia-* wheel(s) of CUDA 12 beside torch 2.1.0+cu118")
    assert "torch loads its own CUDA 11 libraries" in finding.summary


@pytest.mark.parametrize("cuda", [None, "", "N/A", "12"])
def test_no_cuda_major_read_from_torch_no_family_judged(cuda: str | None) -> None:
    torch = {"version": "2.1.0", "flavor": "cuda", "cuda": cuda}
    assert companions_judge.findings(_json(torch), {"installed": {"nvidia-cudnn-cu11": "8.5.0.96"}}, {}) == []


# --- a dump's triton, judged by the table's pins for the machine of the dump --------------------------------


def test_the_marker_environment_is_the_dumps_machine() -> None:
    linux = companions_judge.marker_environment(_torch())
    assert linux["python_version"] == "3.11"
    assert linux["python_full_version"] == "3.11.9"
    assert linux["os_name"] == "posix"
    assert linux["sys_platform"] == "linux"
    windows = companions_judge.marker_environment(_torch(os={"system": "Windows"}))
    assert windows["os_name"] == "nt"
    assert windows["sys_platform"] == "win32"


def _dump_triton(**torch_changes: Any) -> list[Any]:
    comps = {"companions": [_companion("triton", "3.0.0")], "installed": {"triton": "3.0.0"}}
    return companions_judge.findings(_torch(**torch_changes), _json(comps), {})


def test_a_dumps_triton_outside_the_tables_pin_fails_with_the_pins_marker() -> None:
    (finding,) = _dump_triton()
    assert finding.summary == "triton 3.0.0 is installed, but torch 2.5.1+cu124 requires triton==3.1.0"
    assert finding.details[0] == (
        'pairing table: torch 2.5.1 wheels for Linux x86_64 pin triton==3.1.0; platform_system == "Linux" '
        'and platform_machine == "x86_64" and python_version < "3.13"'
    )


@pytest.mark.parametrize(
    "changes",
    [
        {"flavor": "cpu", "version": "2.5.1+cpu", "cuda": None},  # the CPU wheel pins no triton
        {
            "flavor": "rocm",
            "version": "2.5.1+rocm6.2",
            "cuda": None,
            "hip": "6.2.41133",
        },  # pytorch-triton-rocm
        {"machine": "aarch64"},  # the table's pins are the Linux x86_64 wheel's
        {"os": {"system": "Windows"}},
        {"python": None},  # the marker needs the Python
        {"python": "3.13.0"},  # 2.5.1 pins triton below Python 3.13 only
        {"version": "2.5.2+cu124"},  # not a release of the table: the nearest row's pins may differ
        {"version": "1.0.0+cu100"},  # no row at all
    ],
)
def test_a_dumps_triton_is_judged_only_where_the_table_pins_this_wheel(changes: dict[str, Any]) -> None:
    assert _dump_triton(**changes) == []


def test_a_triton_version_that_cannot_be_read_is_not_judged() -> None:
    comps = {"companions": [_companion("triton", "3.1.0-custom")], "installed": {"triton": "3.1.0-custom"}}
    assert companions_judge.findings(_torch(), _json(comps), {}) == []


# --- unreadable versions and pins that do not apply --------------------------------------------------------


def test_outside_is_true_only_for_a_read_version_outside_a_read_specifier() -> None:
    assert outside("3.0.0", "==3.1.0") is True
    assert outside("3.1.0", "==3.1.0") is False
    assert outside("not a version", "==3.1.0") is False
    assert outside("3.1.0", "==3.1.*.0") is False


def test_a_wheel_pin_that_does_not_apply_here_is_not_judged_nor_counted() -> None:
    pin = {"name": "nvidia-cudnn-cu12", "specifier": "==9.1.0.70", "applies": False, "line": "..."}
    comps = {"pins": [pin], "installed": {"nvidia-cudnn-cu12": "8.9.2.26"}, "companions": []}
    assert companions_judge.findings(_torch(), _json(comps), {}) == []
    assert not any("pins" in line for line in companions_judge.evidence(_torch(), _json(comps), {}))


def test_a_wheel_whose_installed_version_cannot_be_read_is_not_outside_its_pin() -> None:
    pin = {"name": "nvidia-cudnn-cu12", "specifier": "==9.1.0.70", "applies": True, "line": "..."}
    comps = {"pins": [pin], "installed": {"nvidia-cudnn-cu12": "9.1.0.70-local"}, "companions": []}
    assert companions_judge.findings(_torch(), _json(comps), {}) == []


# --- the evidence and the summary ---------------------------------------------------------------------


def test_companions_of_a_dump_are_listed_without_saying_they_are_unknown() -> None:
    comps = {"companions": [_companion("torchvision", "0.20.1")], "installed": {}}
    lines = companions_judge.evidence(_torch(), _json(comps), {})
    assert lines == ["torchvision 0.20.1, made for torch 2.5"]
    assert companions_judge.summary(_torch(), _json(comps)) == "torchvision 0.20.1 fit torch 2.5.1"


def test_triton_pinned_by_torchs_metadata_needs_no_table_line() -> None:
    pin = {"name": "triton", "specifier": "==3.1.0", "applies": True, "line": "triton==3.1.0"}
    comps = {"pins": [pin], "installed": {"triton": "3.1.0"}, "companions": [], "looked_for": ["triton"]}
    lines = companions_judge.evidence(_torch(), _json(comps), {})
    assert not any("pins none" in line for line in lines)
    assert "torch's metadata pins 1 package(s) here; 1 installed at the pinned version" in lines


@pytest.mark.parametrize(
    ("version", "table"),
    [
        (
            "2.5.1+cu124",
            ' (torch 2.5.1 wheels for Linux x86_64 pin triton==3.1.0 where platform_system == "Linux" and '
            'platform_machine == "x86_64" and python_version < "3.13")',
        ),
        ("1.13.1+cu117", ""),  # torch 1.x pins no triton: nothing more to say
        ("2.6.0.dev20241112+cu124", " (the pairing table has no triton pin for this torch)"),
    ],
)
def test_a_dumps_triton_is_shown_with_the_tables_pin(version: str, table: str) -> None:
    comps = {"companions": [], "installed": {"triton": "3.1.0"}, "looked_for": ["triton"]}
    lines = companions_judge.evidence(_torch(version=version), _json(comps), {})
    assert lines[-1] == f"triton 3.1.0 is installed; this torch's metadata pins none{table}"


@pytest.mark.parametrize(
    ("companion", "installed", "fits"),
    [
        # the table says which torchvision 2.5.1 takes
        (_companion("torchvision", "0.20.1"), {}, True),
        (_companion("torchvision", "0.19.1"), {}, False),
        # a nightly torchvision, with its own metadata on torch: that was checked
        (
            _companion(
                "torchvision",
                "0.21.0.dev20241112",
                requires_torch=[{"specifier": "==2.6.0.dev20241112", "applies": True, "line": "..."}],
            ),
            {},
            True,
        ),
        # a companion outside the table with no requirement on torch: nothing says
        (_companion("xformers", "0.0.28.post3"), {}, False),
        (
            _companion(
                "xformers",
                "0.0.28.post3",
                requires_torch=[{"specifier": "==2.5.1", "applies": True, "line": "."}],
            ),
            {},
            True,
        ),
        (
            _companion(
                "xformers",
                "0.0.28.post2",
                requires_torch=[{"specifier": "==2.5.0", "applies": True, "line": "."}],
            ),
            {},
            False,
        ),
        # triton of a dump: the table's pin for this machine
        (_companion("triton", "3.1.0"), {"triton": "3.1.0"}, True),
        (_companion("triton", "3.0.0"), {"triton": "3.0.0"}, False),
    ],
)
def test_the_summary_says_fit_only_where_a_table_or_a_requirement_says_so(
    companion: dict[str, Any], installed: dict[str, str], fits: bool
) -> None:
    comps = {"companions": [companion], "installed": installed}
    said = companions_judge.summary(_torch(), _json(comps))
    name = f"{companion['name']} {companion['version']}"
    assert said == (f"{name} fit torch 2.5.1" if fits else f"{name}: fit unknown (no table row or pin says)")


def test_a_build_of_another_minor_of_torchs_cuda_is_reinstalled_from_torchs_index() -> None:
    # cu121 beside cu124: CUDA 12's minor version compatibility loads it; the build made for torch is cu124's
    comps = {"companions": [_companion("torchvision", "0.20.1", "0.20.1+cu121")], "installed": {}}
    (finding,) = companions_judge.findings(_torch(), _json(comps), {})
    assert finding.status is Status.WARN
    assert finding.fix is not None
    assert finding.fix.commands == (
        f"pip install --force-reinstall --no-deps torchvision==0.20.1 --index-url {CU124}",
    )
