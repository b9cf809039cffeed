"""The redaction matrix: secrets planted in every shape, absent from every output format.

Shapes: values of secret-looking variables and keys, credentials inside URLs (and secret query
parameters, Authorization headers, self-identifying tokens), the home directory, the user name, the
hostname, GPU UUIDs. Ordinary values (NCCL_DEBUG=INFO) stay readable. End to end, the secrets reach
the report three ways: the environment, a plugin check's facts and verdict, and NVML (a fake 8-GPU
H100 machine), and the raw (--no-redact) report is checked to carry them, so the matrix cannot pass
by missing them.
"""

from __future__ import annotations

import html
import json
import os
import re
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchdoctor.checking import exitcodes
from torchdoctor.machine import envvars
from torchdoctor.output.redact import (
    PSEUDONYM,
    REDACTED,
    Identity,
    Pseudonyms,
    Redactor,
    command_line,
    is_secret_name,
    redact_report,
    strip_secrets,
    strip_value,
)

from growth import linear, repeated
from support import cli_env, fixture_facts, invoke, machine_report, validated_report, write_distribution

USER = "plantedalice"
OTHER_HOSTS = ("dgx-node-03", "dgx-node-04", "10.20.30.40")
UUIDS = [gpu["uuid"] for gpu in fixture_facts("h100x8_cvd_2_3.json")["nvml"]["gpus"]]
GITHUB_TOKEN = "ghp_PLANTED" + "x" * 29
PLUGIN_SOURCE = """
    import getpass
    import os
    import socket

    from torchdoctor import Check, Finding, Fix, Probe, Status


    def leaky_facts(options):
        return {
            "command": "HF_TOKEN=hfPLANTED torchrun --nproc-per-node 8 train.py --password=pwPLANTED",
            "url": "https://bob:hunter2@PLANTED@models.example.com/zoo?token=qtokPLANTED&x=1",
            "api_key": "akPLANTED",
            "header": "Authorization: Bearer bearerPLANTEDtoken",
            "home_file": os.path.expanduser("~/data/shard-0.bin"),
            "host": socket.gethostname(),
            "fqdn": socket.gethostname() + ".corp.example.com",
            "rendezvous": os.environ["PET_RDZV_ENDPOINT"] + " via " + os.environ["MASTER_ADDR"],
            "user": getpass.getuser(),
            "gpu": "GPU-3c8f1a52-7d0e-4b6a-9f21-0c5e8d7a1b01",
            "ordinary": "NCCL_DEBUG=INFO",
        }


    def judge(facts, options):
        leaky = facts["acme.leaky"]
        return Finding(
            Status.WARN,
            "downloads from " + leaky["url"],
            (leaky["command"], "reads " + leaky["home_file"], "on " + leaky["host"] + " as " + leaky["user"],
             "pushed with GITHUB_TOKEN_VALUE", leaky["gpu"], leaky["header"],
             "rendezvous at " + leaky["rendezvous"] + ", this node " + leaky["fqdn"]),
            Fix("Keep credentials out of the command line.",
                (leaky["command"], "ping -c 1 " + leaky["fqdn"])),
        )


    CHECK = Check("acme.leaky", "Acme leaks", (Probe.of("acme.leaky", leaky_facts),), judge)
""".replace("GITHUB_TOKEN_VALUE", GITHUB_TOKEN)


# ---------------------------------------------------------------- the rules, one shape at a time

IDENTITY = Identity.of(["/home/alice"], ["alice"], ["gpu-node-17.corp.example.com", "gpu-node-17", "vm"])
PSEUDONYMS = Pseudonyms(b"a key of the tests")
REDACTOR = Redactor(IDENTITY, pseudonyms=PSEUDONYMS)
HOST, VM, USER_SEEN = REDACTOR.host("gpu-node-17"), REDACTOR.host("vm"), PSEUDONYMS.of("user", "alice")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("HF_TOKEN=hf_abc python train.py", f"HF_TOKEN={REDACTED} python train.py"),
        ("--password=hunter2 --lr 3e-4", f"--password={REDACTED} --lr 3e-4"),
        ("WANDB_API_KEY: 0123456789abcdef", f"WANDB_API_KEY: {REDACTED}"),
        ("https://bob:hunter2@pypi.example.com/simple", "https://pypi.example.com/simple"),
        ("https://bob:p@ss@host.example.com/x", "https://host.example.com/x"),
        ("s3://AKIAIOSFODNN7EXAMPLE:key@bucket/path", "s3://bucket/path"),
        ("https://dl.example.com/w.pt?token=abc&x=1", f"https://dl.example.com/w.pt?token={REDACTED}&x=1"),
        (
            "https://x.blob.example.net/c?sv=2022&sig=AbC%2Fd",
            f"https://x.blob.example.net/c?sv=2022&sig={REDACTED}",
        ),
        ("Authorization: Bearer abcdefghijklmnop", f"Authorization: {REDACTED}"),
        ("cloned with " + "ghp_" + "a" * 36, f"cloned with {REDACTED}"),
        ("hf_" + "b" * 34 + " in the cache", f"{REDACTED} in the cache"),
        ("key id AKIAIOSFODNN7EXAMPLE", f"key id {REDACTED}"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==\n-----END OPENSSH PRIVATE KEY-----", REDACTED),
        ("/home/alice/venv/bin/python", "~/venv/bin/python"),
        ("/home/alice", "~"),
        ("/home/alicebob/x", "/home/alicebob/x"),
        ("/scratch/alice/run1 by alice", f"/scratch/{USER_SEEN}/run1 by {USER_SEEN}"),
        ("malice and alice2 stay", "malice and alice2 stay"),
        ("ssh alice@gpu-node-17.corp.example.com", f"ssh {USER_SEEN}@{HOST}"),
        ("MASTER_ADDR=gpu-node-17 on vm", f"MASTER_ADDR={HOST} on {VM}"),
        ("kvm vm2 nvml", "kvm vm2 nvml"),
        # Parts of longer names, and any case.
        ("NCCL_SOCKET_IFNAME=gpu-node-17-ib0", f"NCCL_SOCKET_IFNAME={HOST}-ib0"),
        ("/scratch/alice_ext/run", f"/scratch/{USER_SEEN}_ext/run"),
        ("Alice on GPU-NODE-17.corp.example.com", f"{USER_SEEN} on {HOST}"),
        ("vm.ib0 and vm_1", f"{VM}.ib0 and {VM}_1"),
        # Token shapes and places.
        ("slack xapp-1-A0123456789-1234567890123-abcdef", f"slack {REDACTED}"),
        ("xoxe.xoxp-1-Mi0yLTEyMzQ1Njc4OTAxMi0x and xoxe-1-My0xLTEyMzQ1Njc4", f"{REDACTED} and {REDACTED}"),
        (
            "https://app.example.com/cb#access_token=abc123&state=x",
            f"https://app.example.com/cb#access_token={REDACTED}&state=x",
        ),
        ("MY_SERVICE_API_KEYS=k1,k2 NCCL_DEBUG=INFO", f"MY_SERVICE_API_KEYS={REDACTED} NCCL_DEBUG=INFO"),
        ("A=1,HF_TOKEN=x,B=2", f"A=1,HF_TOKEN={REDACTED},B=2"),
        ("SLACK_WEBHOOK_URL=x", f"SLACK_WEBHOOK_URL={REDACTED}"),
        (
            "https://hooks.slack.com/services/T000/B000/XXXXsecret",
            f"https://hooks.slack.com/services/{REDACTED}",
        ),
        ("gitlab glpat-" + "x" * 20, f"gitlab {REDACTED}"),
        ("https://discord.com/api/webhooks/123/AbC-xyz", f"https://discord.com/api/webhooks/{REDACTED}"),
        ("key AIza" + "S" * 35, f"key {REDACTED}"),
        ("npm_" + "n" * 36 + " and pypi-" + "p" * 60, f"{REDACTED} and {REDACTED}"),
        ("GPU-3c8f1a52-7d0e-4b6a-9f21-0c5e8d7a1b01", "GPU-3c8f1a52"),
        ("MIG-GPU-3c8f1a52-7d0e-4b6a-9f21-0c5e8d7a1b01/1/0", "MIG-GPU-3c8f1a52/1/0"),
        ("uuid 3c8f1a52-7d0e-4b6a-9f21-0c5e8d7a1b01", "uuid 3c8f1a52"),
    ],
)
def test_each_shape_is_replaced(text: str, expected: str) -> None:
    assert REDACTOR.text(text) == expected
    assert REDACTOR.text(expected) == expected  # redacting twice changes nothing more


@pytest.mark.parametrize(
    "text",
    [
        "NCCL_DEBUG=INFO",
        "CUDA_VISIBLE_DEVICES=0,1",
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128",
        "MASTER_ADDR=10.0.0.7 MASTER_PORT=29500",
        "torch 2.13.0+cu129 imported from /opt/venv/lib/python3.11/site-packages/torch",
        "https://download.pytorch.org/whl/cu129",
        "NCCL_SOCKET_IFNAME=^docker,lo",
        "GPU 0: NVIDIA H100 80GB HBM3, CC 9.0",
    ],
)
def test_ordinary_values_stay_readable(text: str) -> None:
    assert REDACTOR.text(text) == text


@pytest.mark.parametrize(
    "name",
    [
        "HF_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "DB_PASSWORD",
        "SMTP_PASSWD",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "NCCL_AUTH_TOKEN",
        "JUPYTER_COOKIE_SECRET",
        "SESSION_ID",
        "API_KEY",
        "OPENAI_APIKEY",
        "SSH_PRIVATE",
        "OPENAI_API_KEYS",
        "DB_CREDS",
        "SLACK_WEBHOOK",
    ],
)
def test_secret_looking_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name", ["NCCL_DEBUG", "CUDA_VISIBLE_DEVICES", "MASTER_ADDR", "TORCH_HOME", "KEYBOARD", "MONKEY_PATCH"]
)
def test_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)


def test_the_env_probe_never_records_secret_values_or_url_credentials() -> None:
    recorded = envvars.relevant(
        {
            "TORCH_HUB_TOKEN": "tok",
            "NCCL_DEBUG": "INFO",
            "TORCH_MODEL_ZOO": "https://bob:hunter2@models.example.com/zoo",
            "HF_TOKEN": "never relevant",
        }
    )
    assert recorded == {
        "NCCL_DEBUG": "INFO",
        "TORCH_HUB_TOKEN": REDACTED,
        "TORCH_MODEL_ZOO": "https://models.example.com/zoo",
    }
    assert strip_secrets("https://bob:hunter2@models.example.com/zoo") == recorded["TORCH_MODEL_ZOO"]


def test_identities_that_identify_no_one_are_left_alone() -> None:
    identity = Identity.of(
        ["/", ""], ["root", "a", "ubuntu"], ["localhost", "gpu-node-17", "127.0.0.1", "0.0.0.0", "::1"]
    )
    assert identity == Identity((), (), ("gpu-node-17",))
    text = "/usr/lib as root on localhost, Ubuntu 22.04, 127.0.0.1, 0.0.0.0, 10.0.0.7"
    assert Redactor(identity).text(text) == text


def test_an_address_named_as_a_host_is_one_whole_and_nothing_else_of_it_is() -> None:
    """MASTER_ADDR=10.0.0.7 names a machine: the address gets a pseudonym, whole (never its first number
    alone, which would garble every 10 of the text)."""
    redactor = Redactor(Identity.of([], [], ["10.0.0.7"]))
    assert PSEUDONYM.fullmatch(redactor.text("10.0.0.7"))
    assert redactor.text("10 GPUs, 10.0.0.70 and 110.0.0.7") == "10 GPUs, 10.0.0.70 and 110.0.0.7"


def test_names_that_are_words_of_the_report_are_left_alone() -> None:
    # A host named after its GPUs, a user named torch: replacing them would garble every GPU name and check.
    identity = Identity.of(
        [], ["torch", "cuda", "alice"], ["h100", "A100", "h100x8", "rtx4090", "gpu-node-17"]
    )
    assert identity == Identity((), ("alice",), ("gpu-node-17",))
    text = "torch.build: NVIDIA H100 80GB HBM3 on gpu-node-17, CUDA 12.9, torch 2.13.0"
    assert (
        Redactor(identity, pseudonyms=PSEUDONYMS)
        .text(text)
        .startswith("torch.build: NVIDIA H100 80GB HBM3 on <host-")
    )


def test_a_redacted_report_keeps_its_structure_and_validates() -> None:
    data = _fixture_report()
    redacted = redact_report(data, IDENTITY)
    assert redacted["redacted"] is True
    assert PSEUDONYM.fullmatch(redacted["host"]["hostname"])
    assert redacted["host"]["executable"] == "~/venv/bin/python"
    assert [(v["id"], v["status"]) for v in redacted["verdicts"]] == [
        (v["id"], v["status"]) for v in data["verdicts"]
    ]
    validated_report(json.dumps(redacted))
    assert "7d0e-4b6a-9f21-0c5e8d7a1b01" in json.dumps(data)
    assert "7d0e-4b6a-9f21-0c5e8d7a1b01" not in json.dumps(redacted)


def _fixture_report() -> dict[str, Any]:
    facts = fixture_facts("h100x8_cvd_2_3.json")
    host = {"hostname": "gpu-node-17.corp.example.com", "executable": "/home/alice/venv/bin/python"}
    return machine_report(facts, ["torch.build", "cuda.visible_devices"], host)


# ---------------------------------------------------------------- end to end, every output format


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """An environment with secrets in every shape, and the home, user and hostname to look for."""
    root = tmp_path_factory.mktemp("planted")
    home = root / "home" / USER
    home.mkdir(parents=True)
    site = root / "site"
    write_distribution(
        site, "acme-leaky", "1.0", "acme_leaky", PLUGIN_SOURCE, {"acme.leaky": "acme_leaky:CHECK"}
    )
    machine = root / "h100x8.json"
    machine.write_text(json.dumps(fixture_facts("h100x8_cvd_2_3.json")["nvml"]))
    env = cli_env(
        HOME=str(home),
        USER=USER,
        LOGNAME=USER,
        TORCHDOCTOR_NVML_BACKEND="fake_nvml:BACKEND",
        FAKE_NVML_MACHINE=str(machine),
        CUDA_VISIBLE_DEVICES=UUIDS[2],
        NCCL_DEBUG="INFO",
        TORCH_HUB_TOKEN="envtokPLANTED",
        TORCH_MODEL_ZOO="https://bob:envpwPLANTED@models.example.com/zoo",
        PYTORCH_DOWNLOAD_URL="https://dl.example.com/w.pt?token=envqPLANTED",
        # Other machines' names, by what the variables are: every one gets a pseudonym wherever it stands.
        MASTER_ADDR=f"{OTHER_HOSTS[0]}.corp.example.com",
        PET_RDZV_ENDPOINT=f"{OTHER_HOSTS[1]}:29400",
        NCCL_COMM_ID=f"{OTHER_HOSTS[2]}:5555",
        LD_LIBRARY_PATH=f"{home}/cuda/lib64:/usr/local/cuda/lib64",
        TORCH_EXTENSIONS_DIR=f"/scratch/{USER}/torch_extensions",
    )
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    return {"env": env, "home": str(home), "cwd": root}


ONLY = ("--only", "acme.leaky,torch.build,cuda.visible_devices")


@pytest.fixture(scope="module")
def raw(planted: dict[str, Any]) -> tuple[Path, str]:
    """The report of the planted environment written with --no-redact, and what the run said on stderr."""
    path = planted["cwd"] / "raw.json"
    result = invoke("report", "--no-redact", "-o", str(path), *ONLY, env=planted["env"], cwd=planted["cwd"])
    assert result.returncode == exitcodes.OK, result.stderr
    return path, result.stderr


def report(planted: dict[str, Any], raw: tuple[Path, str], *args: str) -> str:
    """The planted environment's raw report written again, as ``report --from`` does, redacted."""
    result = invoke(
        "report", "--preview", "--from", str(raw[0]), *args, env=planted["env"], cwd=planted["cwd"]
    )
    assert result.returncode == exitcodes.OK, result.stderr
    return result.stdout


def leaks(text: str, planted: dict[str, Any]) -> list[str]:
    """Every planted secret or identity found in ``text`` (HTML and SVG are read as the text they show)."""
    shown = html.unescape(re.sub(r"<[^>]+>", "", text)) if text.lstrip().startswith("<") else text
    found = [f"secret {m}" for m in re.findall(r"\w*PLANTED\w*", text + shown)]
    found += [f"home {planted['home']}" for t in (text, shown) if planted["home"] in t]
    found += [f"user {USER}" for t in (text, shown) if USER in t]
    for name in (socket.gethostname(), *OTHER_HOSTS, "corp.example.com"):
        host = re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(name)}(?![A-Za-z0-9_-])")
        found += [f"hostname in {m.group(0)!r}" for t in (text, shown) for m in host.finditer(t)]
    found += [f"uuid {u}" for u in UUIDS for t in (text, shown) if u[len("GPU-3c8f1a52") :] in t]
    return found


def test_the_raw_report_carries_the_identities_and_never_a_secret(
    planted: dict[str, Any], raw: tuple[Path, str]
) -> None:
    """--no-redact keeps who and where (so the matrix below cannot pass by missing them), and still never a
    secret: each planted one reached the report and was removed where it stood."""
    path, stderr = raw
    assert stderr.startswith("torchdoctor: warning: --no-redact:")
    text = path.read_text()
    report = validated_report(text)
    assert report["redacted"] is False
    found = leaks(text, planted)
    assert f"home {planted['home']}" in found and f"user {USER}" in found
    for name in (socket.gethostname(), *OTHER_HOSTS, "corp.example.com"):
        assert f"hostname in {name!r}" in found, name
    assert f"uuid {UUIDS[0]}" in found and f"uuid {UUIDS[2]}" in found
    assert not [item for item in found if item.startswith("secret")], found
    leaky = report["facts"]["acme.leaky"]
    assert leaky["api_key"] == REDACTED
    assert (
        leaky["command"] == f"HF_TOKEN={REDACTED} torchrun --nproc-per-node 8 train.py --password={REDACTED}"
    )
    assert leaky["url"] == f"https://models.example.com/zoo?token={REDACTED}&x=1"
    assert leaky["header"] == f"Authorization: {REDACTED}"


@pytest.mark.parametrize("fmt", ["md", "json", "html", "svg"])
def test_no_output_format_carries_a_planted_secret(
    planted: dict[str, Any], raw: tuple[Path, str], fmt: str
) -> None:
    text = report(planted, raw, "--format", fmt)
    assert leaks(text, planted) == []
    shown = html.unescape(re.sub(r"<[^>]+>", "", text)) if fmt in ("html", "svg") else text
    assert re.search(r"NCCL_DEBUG\W+INFO", shown), "an ordinary variable must stay readable"
    assert "GPU-3c8f1a52" in shown  # shortened, still a valid prefix for nvidia-smi and CUDA_VISIBLE_DEVICES
    if fmt == "json":
        data = validated_report(text)
        assert data["facts"]["env"]["variables"]["TORCH_HUB_TOKEN"] == REDACTED
        assert data["facts"]["acme.leaky"]["api_key"] == REDACTED
        assert data["facts"]["env"]["variables"]["LD_LIBRARY_PATH"] == "~/cuda/lib64:/usr/local/cuda/lib64"
        assert data["facts"]["env"]["variables"]["TORCH_EXTENSIONS_DIR"].startswith("/scratch/<user-")


def test_a_written_report_is_redacted_like_the_preview(
    planted: dict[str, Any], raw: tuple[Path, str]
) -> None:
    args = ("--from", str(raw[0]), "-o", "ticket.md", "--force")
    result = invoke("report", *args, env=planted["env"], cwd=planted["cwd"])
    assert result.returncode == exitcodes.OK, result.stderr
    written = (planted["cwd"] / "ticket.md").read_text()
    assert leaks(written, planted) == []
    assert "| NCCL_DEBUG | `INFO` |" in written


# ---------------------------------------------------------------- values parsed before they are redacted

PGP_BLOCK = (
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGPlanted0BCADx\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----"
)


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("SIGNING_MATERIAL", PGP_BLOCK, REDACTED),
        ("NOTES", "cut off: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1r", f"cut off: {REDACTED}"),
        ("NOTES", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE----- ok", f"{REDACTED} ok"),
        (
            "LD_LIBRARY_PATH",
            "/opt/lib:/data/token=abc123/lib:/usr/lib",
            f"/opt/lib:/data/token={REDACTED}:/usr/lib",
        ),
        ("MASTER_ADDR", "bob:hunter2@node01", "node01"),
        ("MASTER_ADDR", "node01", "node01"),
        ("NCCL_SOCKET_IFNAME", "eth0", "eth0"),
    ],
)
def test_values_are_parsed_then_redacted(name: str, value: str, expected: str) -> None:
    assert envvars.relevant({name: value}).get(name, strip_value(name, value)) == expected


def test_the_user_name_comes_from_the_system_not_only_from_user(monkeypatch: pytest.MonkeyPatch) -> None:
    from torchdoctor.output import redact

    monkeypatch.setattr(redact, "system_user", lambda: "realbob")
    monkeypatch.setenv("USER", "someoneelse")
    monkeypatch.setenv("LOGNAME", "someoneelse")
    identity = Identity.current()
    assert {"realbob", "someoneelse"} <= set(identity.users)
    user = Redactor(identity).pseudonyms.of("user", "realbob")
    assert Redactor(identity).text("/scratch/realbob/run as realbob") == f"/scratch/{user}/run as {user}"


@pytest.mark.parametrize(
    ("args", "own", "expected"),
    [
        (
            ["python", "serve.py", "--token", "s3cret", "--port", "29500"],
            True,
            "python serve.py --token <redacted> --port 29500",
        ),
        (["python", "serve.py", "--api-key=s3cret"], True, "python serve.py --api-key=<redacted>"),
        (["/usr/bin/python3", "serve.py", "--token", "s3cret"], False, "python3"),
    ],
)
def test_a_command_line_is_the_program_alone_unless_it_is_the_users_own(
    args: list[str], own: bool, expected: str
) -> None:
    assert command_line(args, own) == expected


def test_check_json_is_redacted_by_default_and_no_redact_still_strips_credentials() -> None:
    env = cli_env(PYTORCH_DOWNLOAD_URL="https://bob:pwPLANTED@dl.example.com/w.pt", NCCL_DEBUG="INFO")
    redacted = validated_report(invoke("check", "--only", "cuda.visible_devices", "--json", env=env).stdout)
    assert redacted["redacted"] is True and PSEUDONYM.fullmatch(redacted["host"]["hostname"])
    raw = validated_report(
        invoke("check", "--only", "cuda.visible_devices", "--json", "--no-redact", env=env).stdout
    )
    assert raw["redacted"] is False and raw["host"]["hostname"] == socket.gethostname()
    for data in (redacted, raw):
        assert data["facts"]["env"]["variables"]["NCCL_DEBUG"] == "INFO"
    # Credentials go either way; the host of the URL is a host a report names, kept by --no-redact alone.
    assert raw["facts"]["env"]["variables"]["PYTORCH_DOWNLOAD_URL"] == "https://dl.example.com/w.pt"
    shown = redacted["facts"]["env"]["variables"]["PYTORCH_DOWNLOAD_URL"]
    assert re.fullmatch(r"https://<host-[0-9a-f]{6,}>/w\.pt", shown), shown


# ---------------------------------------------------------------- pseudonyms

NAMES = st.text(st.characters(codec="utf-8"), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(st.lists(NAMES, min_size=1, max_size=8, unique_by=str.casefold))
def test_pseudonyms_are_stable_and_distinct(names: list[str]) -> None:
    pseudonyms = Pseudonyms(b"key")
    given_out = [pseudonyms.of("host", name) for name in names]
    assert len(set(given_out)) == len(names)  # different names, different pseudonyms
    for name, out in zip(names, given_out, strict=True):
        assert PSEUDONYM.fullmatch(out)
        assert pseudonyms.of("host", name) == out  # the same name, the same pseudonym
        assert pseudonyms.of("host", name.swapcase()) == out or name.swapcase().casefold() != name.casefold()


def test_a_pseudonym_depends_on_the_key() -> None:
    one, another = Pseudonyms(b"one key"), Pseudonyms(b"another key")
    assert one.of("host", "gpu-node-17") != another.of("host", "gpu-node-17")


def test_a_name_gets_one_pseudonym_in_any_case_and_a_fqdn_the_one_of_its_short_name() -> None:
    assert REDACTOR.text("GPU-NODE-17") == REDACTOR.text("gpu-node-17.corp.example.com") == HOST
    assert HOST != VM and "gpu-node-17" not in HOST


def test_names_whose_hashes_start_alike_still_get_two_pseudonyms() -> None:
    import hashlib
    import hmac

    key, seen = b"key", {}
    for number in range(1 << 16):  # a 24-bit prefix repeats after about 4,000 names
        name = f"node{number}"
        digest = hmac.new(key, f"host\0{name}".encode(), hashlib.sha256).hexdigest()[:6]
        if digest in seen:
            break
        seen[digest] = name
    pseudonyms = Pseudonyms(key)
    first, second = pseudonyms.of("host", seen[digest]), pseudonyms.of("host", name)
    assert first == f"<host-{digest}>" and second != first and second.startswith(f"<host-{digest}")


def test_every_host_a_report_names_gets_its_own_pseudonym() -> None:
    """cluster and dry-run reports name other machines: node 0 and node 1 stay two machines."""
    data = _fixture_report()
    data["cluster"] = {
        "ranks": [{"rank": 0, "hostname": "node-a.example.com"}, {"rank": 1, "hostname": "node-b"}],
        "nodes": [{"node": "host node-a.example.com", "ranks": [0]}, {"node": "host node-b", "ranks": [1]}],
    }
    redacted = redact_report(data, Identity())
    ranks = redacted["cluster"]["ranks"]
    assert PSEUDONYM.fullmatch(ranks[0]["hostname"]) and PSEUDONYM.fullmatch(ranks[1]["hostname"])
    assert ranks[0]["hostname"] != ranks[1]["hostname"] != redacted["host"]["hostname"]
    assert [n["node"] for n in redacted["cluster"]["nodes"]] == [f"host {r['hostname']}" for r in ranks]
    assert "node-a" not in json.dumps(redacted) and "node-b" not in json.dumps(redacted)


def test_a_report_redacted_before_keeps_its_pseudonyms() -> None:
    once = redact_report(_fixture_report(), IDENTITY)
    again = redact_report(once, IDENTITY)
    assert again["host"]["hostname"] == once["host"]["hostname"] and again == once


def test_keys_are_redacted_like_values() -> None:
    redacted = REDACTOR.value({"/home/alice/data": {"alice": 1}, "HF_TOKEN": "x"})
    assert redacted == {"~/data": {USER_SEEN: 1}, "HF_TOKEN": REDACTED}


# ---------------------------------------------------------------- linear time


# Each shape made a pattern backtrack once (a.a.a... took a minute at 64 KiB): every start position
# rescanned the run after it.
@pytest.mark.parametrize(
    "unit", ["a.", "a+", "a-", "eyJa-", "a:", "?a", "a://", " ", "a@", "x.y@", "a=", "1.", "sk-", "\t", "a,"]
)
def test_redaction_is_linear(unit: str) -> None:
    assert linear(REDACTOR.text, repeated(unit), 4096)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_redacting_twice_changes_nothing_more(text: str) -> None:
    once = REDACTOR.text(text)
    assert REDACTOR.text(once) == once


_PSEUDONYM_OF = (
    "from torchdoctor.output import redact; "
    "print(redact.Redactor(redact.Identity.of([], [], ['dgx-node-03'])).text('dgx-node-03'))"
)


def _pseudonym_in(state: Path) -> str:
    env = cli_env(XDG_STATE_HOME=str(state))
    done = subprocess.run(
        [sys.executable, "-c", _PSEUDONYM_OF], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout.strip()


def test_a_host_gets_the_same_pseudonym_run_after_run_on_one_machine_and_another_elsewhere(
    tmp_path: Path,
) -> None:
    """The key is this user's on this machine (kept in $XDG_STATE_HOME/torchdoctor, mode 0600 in a folder
    of mode 0700): two runs agree, as a CI log needs; another key (another machine) does not."""
    first, again = _pseudonym_in(tmp_path / "here"), _pseudonym_in(tmp_path / "here")
    elsewhere = _pseudonym_in(tmp_path / "there")
    assert PSEUDONYM.fullmatch(first) and first == again and elsewhere != first
    key = tmp_path / "here" / "torchdoctor" / "pseudonyms.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert len(key.read_bytes()) == 32


def test_a_key_that_is_not_a_regular_file_of_this_user_is_not_used(tmp_path: Path) -> None:
    """A link or a folder where the key should be: a key for the run alone, and nothing is written there."""
    folder = tmp_path / "state" / "torchdoctor"
    folder.mkdir(parents=True)
    (folder / "pseudonyms.key").symlink_to(tmp_path / "elsewhere")
    first, second = _pseudonym_in(tmp_path / "state"), _pseudonym_in(tmp_path / "state")
    assert PSEUDONYM.fullmatch(first) and first != second
    assert not (tmp_path / "elsewhere").exists()
