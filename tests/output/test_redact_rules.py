"""The redaction rules one at a time, in this process: the pseudonym key file, pseudonym collisions, host and
user names, and what a report's structure keeps.

tests/output/test_redact.py plants secrets end to end; these state the rules it relies on, each with why it
matters. The key file tests run under a fresh ``$XDG_STATE_HOME`` of their own (never the real home) and with
umask 0, so that every mode seen is the one torchdoctor asks for. Another process's moves (making the key
meanwhile, removing it) are played by a wrapper at the point where they would happen: no test waits or times.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import getpass
import hashlib
import hmac
import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from torchdoctor.output import redact
from torchdoctor.output.redact import (
    KEY_BYTES,
    PSEUDONYM,
    Identity,
    Pseudonyms,
    Redactor,
    host_values,
    hostnames_in,
    key_path,
    machine_key,
    redact_report,
    report_hosts,
    system_user,
)

PSEUDONYMS = Pseudonyms(b"a key of the tests")
PLANTED = bytes(range(100, 100 + KEY_BYTES))  # a key someone else put there
POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes, owners, links and FIFOs")


# ---------------------------------------------------------------- the pseudonym key file


@pytest.fixture
def key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The key's path under a $XDG_STATE_HOME not made yet, with umask 0 while the test runs."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    umask = os.umask(0)
    try:
        yield tmp_path / "state" / "torchdoctor" / "pseudonyms.key"
    finally:
        os.umask(umask)


def _plant(path: Path, content: bytes = PLANTED) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    path.chmod(0o600)


def _opens(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The flags of every os.open from here on."""
    flags: list[int] = []
    real_open = os.open

    def spy(path: Any, how: int, *args: Any, **kwargs: Any) -> int:
        flags.append(how)
        return real_open(path, how, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    return flags


def test_the_key_lives_under_xdg_state_home_or_else_under_local_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The XDG base directory rule: $XDG_STATE_HOME where set and not empty, ~/.local/state otherwise."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert key_path() == tmp_path / "xdg" / "torchdoctor" / "pseudonyms.key"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("USERPROFILE", str(tmp_path / "home"))
    default = Path(os.path.expanduser("~")) / ".local" / "state" / "torchdoctor" / "pseudonyms.key"
    assert default == tmp_path / "home" / ".local" / "state" / "torchdoctor" / "pseudonyms.key"
    monkeypatch.setenv("XDG_STATE_HOME", "")
    assert key_path() == default
    monkeypatch.delenv("XDG_STATE_HOME")
    assert key_path() == default


def test_the_key_is_made_once_0600_in_a_0700_folder_and_read_back(key_file: Path) -> None:
    """The key decides every pseudonym: only this user may read it (0600, in a folder of 0700, even under
    umask 0), and it is kept, so a host gets the same pseudonym run after run (the folders above are made)."""
    assert not key_file.parent.parent.exists()
    made = machine_key()
    assert len(made) == KEY_BYTES and key_file.read_bytes() == made
    assert machine_key() == made  # read back, not made again
    if sys.platform != "win32":
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700


def test_a_key_removed_from_its_folder_is_made_again_there(key_file: Path) -> None:
    key_file.parent.mkdir(parents=True)
    made = machine_key()
    assert key_file.read_bytes() == made and machine_key() == made


def test_without_o_nofollow_or_o_nonblock_the_key_is_still_made_and_read_back(
    key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows has neither flag: the key file works the same without them."""
    monkeypatch.delattr(os, "O_NOFOLLOW", raising=False)
    monkeypatch.delattr(os, "O_NONBLOCK", raising=False)
    made = machine_key()
    assert key_file.read_bytes() == made and machine_key() == made


def test_two_processes_making_the_key_at_once_end_with_one_key(
    key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another torchdoctor makes the key between this one's read (none yet) and its own making: this one
    reads and uses that key (O_EXCL), and never writes over it; both runs give the same pseudonyms."""
    real_read = redact._read_key

    def read_then_another_makes_it(path: Path) -> bytes:
        try:
            return real_read(path)
        except FileNotFoundError:
            if not path.exists():
                _plant(path)
            raise

    monkeypatch.setattr(redact, "_read_key", read_then_another_makes_it)
    assert machine_key() == PLANTED
    assert key_file.read_bytes() == PLANTED


def test_a_key_that_keeps_vanishing_is_tried_twice_then_one_for_this_process(
    key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process removes the key after each making and makes it again after each read: torchdoctor
    reads twice (once more after finding it made meanwhile), then takes a key of its own: it does not loop."""
    reads: list[Path] = []

    def removed_then_made_again(path: Path) -> bytes:
        reads.append(path)
        path.unlink(missing_ok=True)
        _plant(path)
        raise FileNotFoundError(errno.ENOENT, "removed meanwhile", str(path))

    monkeypatch.setattr(redact, "_read_key", removed_then_made_again)
    key = machine_key()
    assert len(reads) == 2
    assert len(key) == KEY_BYTES and key != PLANTED and key_file.read_bytes() == PLANTED


def test_where_the_key_can_be_neither_read_nor_made_a_key_for_this_process(
    key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only home: torchdoctor still redacts, under a key of its own (pseudonyms then change from run
    to run), after one try at making the file."""
    made: list[int] = []
    real_open = os.open

    def read_only(path: Any, how: int, *args: Any, **kwargs: Any) -> int:
        if how & os.O_CREAT:
            made.append(how)
            raise PermissionError(errno.EROFS, "read-only file system", str(path))
        return real_open(path, how, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    first = machine_key()
    assert len(made) == 1
    second = machine_key()
    assert len(first) == len(second) == KEY_BYTES and first != second
    assert not key_file.exists()


@pytest.mark.parametrize("size", [0, KEY_BYTES - 1, KEY_BYTES + 1, 2 * KEY_BYTES])
def test_a_key_of_the_wrong_length_is_refused_and_left_alone(
    key_file: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    """A truncated or padded key is not this machine's key: torchdoctor takes one for this process, and
    neither writes over the file nor tries to make another beside it."""
    content = bytes(range(size))
    _plant(key_file, content)
    opened = _opens(monkeypatch)
    key = machine_key()
    assert len(key) == KEY_BYTES and key != content[:KEY_BYTES]
    assert key_file.read_bytes() == content
    assert not [how for how in opened if how & os.O_CREAT]


@POSIX
def test_a_symlink_at_the_key_path_is_never_followed(key_file: Path, tmp_path: Path) -> None:
    """Whoever can put a link there chooses the key (and so can match pseudonyms with names), or makes
    torchdoctor write where the link points: the link is refused, even to a valid key of this user."""
    target = tmp_path / "planted.key"
    _plant(target)
    key_file.parent.mkdir(parents=True)
    key_file.symlink_to(target)
    key = machine_key()
    assert len(key) == KEY_BYTES and key != PLANTED
    assert key_file.is_symlink() and target.read_bytes() == PLANTED

    key_file.unlink()
    key_file.symlink_to(tmp_path / "nowhere.key")
    assert len(machine_key()) == KEY_BYTES
    assert not (tmp_path / "nowhere.key").exists()


@POSIX
def test_a_folder_at_the_key_path_is_refused(key_file: Path) -> None:
    key_file.mkdir(parents=True)
    assert len(machine_key()) == KEY_BYTES and key_file.is_dir()


@POSIX
def test_a_fifo_at_the_key_path_is_refused_at_once_even_with_a_key_in_it(
    key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FIFO is no key file, whatever comes through it; and opening one without O_NONBLOCK waits for a
    writer, which would hold every torchdoctor run (a blocking open here fails the test instead)."""
    key_file.parent.mkdir(parents=True)
    os.mkfifo(key_file, 0o600)
    real_open = os.open

    def never_waiting(path: Any, how: int, *args: Any, **kwargs: Any) -> int:
        if Path(path) == key_file and not how & (os.O_CREAT | os.O_NONBLOCK):
            raise AssertionError("opened the key's path in a way that waits for a FIFO's writer")
        return real_open(path, how, *args, **kwargs)

    monkeypatch.setattr(os, "open", never_waiting)
    assert len(machine_key()) == KEY_BYTES  # no writer
    writer = real_open(key_file, os.O_RDWR | os.O_NONBLOCK)
    try:
        os.write(writer, PLANTED)
        key = machine_key()
    finally:
        os.close(writer)
    assert len(key) == KEY_BYTES and key != PLANTED
    assert stat.S_ISFIFO(key_file.lstat().st_mode)


@POSIX
@pytest.mark.parametrize("other", [1, -1])
def test_another_users_key_file_is_refused(
    key_file: Path, monkeypatch: pytest.MonkeyPatch, other: int
) -> None:
    """A key file that another user owns (whose uid is above or below this one's) could be that user's
    choice: refused, and left alone."""
    _plant(key_file)
    uid = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: uid + other)
    key = machine_key()
    assert len(key) == KEY_BYTES and key != PLANTED and key_file.read_bytes() == PLANTED


@POSIX
def test_the_key_file_of_a_user_with_a_large_uid_is_this_users(
    key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Owner and process are compared by value: uid 1000001 (made twice, two int objects) owns its key."""
    _plant(key_file)
    real_fstat = os.fstat

    def owned_by_1000001(fd: int) -> os.stat_result:
        fields = list(real_fstat(fd)[:10])
        fields[4] = int("1000001")
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", owned_by_1000001)
    monkeypatch.setattr(os, "getuid", lambda: int("1000001"))
    assert machine_key() == PLANTED


# ---------------------------------------------------------------- pseudonyms


@functools.cache
def _colliding_names(key: bytes) -> tuple[str, str, str, str]:
    """Two host names whose pseudonyms under ``key`` share their first 6 hex digits, and the two digests,
    found by brute force (a 24-bit prefix repeats after about 4,000 names; b"key" needs fewer than 2**16)."""
    seen: dict[str, tuple[str, str]] = {}
    for number in range(1 << 16):
        name = f"node{number}"
        digest = hmac.new(key, f"host\0{name}".encode(), hashlib.sha256).hexdigest()
        if digest[:6] in seen:
            first, first_digest = seen[digest[:6]]
            return first, name, first_digest, digest
        seen[digest[:6]] = (name, digest)
    raise AssertionError("no collision in 2**16 names")


@pytest.mark.parametrize("reverse", [False, True])
def test_a_collision_takes_two_more_digits_for_the_later_name(reverse: bool) -> None:
    """Two hosts never share a pseudonym: the name that comes second takes 8 digits (a whole byte more),
    whichever of the two it is; the first keeps its 6."""
    first, second, first_digest, second_digest = _colliding_names(b"key")
    if reverse:
        first, second, first_digest, second_digest = second, first, second_digest, first_digest
    pseudonyms = Pseudonyms(b"key")
    assert pseudonyms.of("host", first) == f"<host-{first_digest[:6]}>"
    assert pseudonyms.of("host", second) == f"<host-{second_digest[:8]}>"
    assert pseudonyms.of("host", first.upper()) == f"<host-{first_digest[:6]}>"


# ---------------------------------------------------------------- who and what names someone


@pytest.mark.parametrize(
    "user",
    [
        "root",
        "nobody",
        "ubuntu",
        "debian",
        "centos",
        "fedora",
        "ec2-user",
        "admin",
        "user",
        "jovyan",
        "runner",
        "vscode",
        "codespace",
    ],
)
def test_the_users_images_and_services_create_everywhere_identify_no_one(user: str) -> None:
    """GitHub's runners, dev containers and codespaces run as the same user on every machine."""
    assert Identity.of([], [user, "alice"], []).users == ("alice",)


@pytest.mark.parametrize(
    "word",
    [
        "torch",
        "pytorch",
        "torchvision",
        "torchaudio",
        "triton",
        "cuda",
        "cudnn",
        "cublas",
        "nccl",
        "gloo",
        "nvidia",
        "nvml",
        "rocm",
        "hip",
        "mps",
        "xpu",
        "gpu",
        "gpus",
        "cpu",
        "python",
        "pip",
        "conda",
        "linux",
        "windows",
        "darwin",
        "macos",
        "torchdoctor",
        "torchrun",
    ],
)
def test_a_word_of_the_report_is_no_user_and_no_host(word: str) -> None:
    """Replacing "nvidia" or "linux" would garble every report: a user or host so named keeps the word."""
    assert Identity.of([], [word], [word]) == Identity()
    assert Identity.of([], [word.upper()], [word.capitalize()]) == Identity()


def test_an_identity_cannot_be_changed_once_made_and_is_one_by_value() -> None:
    """A Redactor builds its pattern from its identity once: the identity cannot change under it."""
    identity = Identity.of(["/home/alice"], ["alice"], ["node01"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        identity.users = ()  # type: ignore[misc]
    assert {identity: "seen"}[Identity.of(["/home/alice"], ["alice"], ["node01"])] == "seen"


@pytest.mark.parametrize("error", [RuntimeError, KeyError])
def test_a_process_without_a_home_has_no_home_to_replace(
    monkeypatch: pytest.MonkeyPatch, error: type[Exception]
) -> None:
    """Path.home() fails where $HOME is unset and the uid has no password entry (a container run with
    --user 12345): the identity goes on without a home."""

    def no_home(cls: type[Path]) -> Path:
        raise error("no home")

    monkeypatch.setattr(Path, "home", classmethod(no_home))
    assert Identity.current().homes == ()


def test_names_are_listed_longest_first_with_a_hosts_short_name_and_an_address_whole() -> None:
    """A FQDN before its short name, a path before its parent; an address has no short name (10 of
    10.0.0.7 names nothing)."""
    identity = Identity.of(
        ["/home/al", "/home/al/projects/x"],
        ["al", "alice"],
        ["fd00::7", "10.0.0.7", "gpu-node-17.corp.example.com"],
    )
    assert identity.homes == ("/home/al/projects/x", "/home/al")
    assert identity.users == ("alice", "al")
    assert identity.hostnames == ("gpu-node-17.corp.example.com", "gpu-node-17", "10.0.0.7", "fd00::7")


def test_a_longer_name_is_replaced_before_a_shorter_one_at_the_same_place() -> None:
    """Windows host names are upper case: ALICE-LAPTOP is one host, not the user alice and "-LAPTOP"."""
    redactor = Redactor(Identity.of([], ["alice"], ["ALICE-LAPTOP"]), pseudonyms=PSEUDONYMS)
    host, user = redactor.host("ALICE-LAPTOP"), PSEUDONYMS.of("user", "alice")
    assert redactor.text("alice on ALICE-LAPTOP, alice-laptop") == f"{user} on {host}, {host}"


def test_two_addresses_are_two_hosts() -> None:
    """MASTER_ADDR=10.0.0.7 and a node at 10.0.0.8: two machines, two pseudonyms (an address was once taken
    for the "short name" 10 of a FQDN, and every 10.x.y.z got one pseudonym)."""
    redactor = Redactor(Identity.of([], [], ["10.0.0.7", "10.0.0.8"]), pseudonyms=PSEUDONYMS)
    one, two = redactor.text("10.0.0.7"), redactor.text("10.0.0.8")
    assert PSEUDONYM.fullmatch(one) and PSEUDONYM.fullmatch(two) and one != two
    assert one == redactor.host("10.0.0.7") == PSEUDONYMS.of("host", "10.0.0.7")


def test_a_fqdn_whose_short_name_is_no_host_is_its_own_host() -> None:
    """h100 names a GPU, not the host h100.corp.example.com: that host's pseudonym is its whole name's."""
    redactor = Redactor(Identity.of([], [], ["h100.corp.example.com"]), pseudonyms=PSEUDONYMS)
    assert (
        redactor.text("ssh h100.corp.example.com") == f"ssh {PSEUDONYMS.of('host', 'h100.corp.example.com')}"
    )
    assert redactor.text("NVIDIA H100") == "NVIDIA H100"


def test_an_address_is_replaced_alone_not_with_the_labels_after_it() -> None:
    """nip.io and sslip.io names hold an address: the address is the host, not the service's domain."""
    redactor = Redactor(Identity.of([], [], ["10.0.0.7"]), pseudonyms=PSEUDONYMS)
    assert redactor.text("http://10.0.0.7.nip.io/") == f"http://{redactor.host('10.0.0.7')}.nip.io/"


@pytest.mark.parametrize(
    "name",
    ["gpu-node-17.lab.org", "gpu-node-17.lab.example.org", "GPU-NODE-17.a.b.c.d", "gpu-node-17.a.b.c.d.e"],
)
def test_a_known_host_with_a_domain_not_seen_before_is_that_host(name: str) -> None:
    """The system knows its host as gpu-node-17; logs name it with whatever domain: one host."""
    redactor = Redactor(Identity.of([], [], ["gpu-node-17"]), pseudonyms=PSEUDONYMS)
    assert redactor.text(f"ping {name} now") == f"ping {redactor.host('gpu-node-17')} now"


def test_a_fqdn_known_without_its_short_name_takes_the_domain_labels_after_it() -> None:
    redactor = Redactor(Identity.of([], [], ["h100.lab.corp"]), pseudonyms=PSEUDONYMS)
    host = PSEUDONYMS.of("host", "h100.lab.corp")
    assert redactor.text("h100.lab.corp.example.org") == host
    assert redactor.text("h100.lab.corp.a.b.c.d.e") == host


def test_a_user_name_with_dots_is_a_user_not_a_host_with_a_domain() -> None:
    """The user alice.smith on the host alice: two identities, two pseudonyms of their own kinds."""
    redactor = Redactor(Identity.of([], ["alice.smith"], ["alice"]), pseudonyms=PSEUDONYMS)
    user, host = PSEUDONYMS.of("user", "alice.smith"), redactor.host("alice")
    assert redactor.text("alice.smith@alice") == f"{user}@{host}"


# ---------------------------------------------------------------- the hosts environment variables name


@pytest.mark.parametrize(
    "variable",
    [
        "MASTER_ADDR",
        "PET_MASTER_ADDR",
        "PET_RDZV_ENDPOINT",
        "NCCL_COMM_ID",
        "SLURMD_NODENAME",
        "HOSTNAME",
        "SLURM_LAUNCH_NODE_IPADDR",
        "SLURM_SRUN_COMM_HOST",
        "TORCHELASTIC_RDZV_ENDPOINT",
    ],
)
def test_each_host_variable_names_a_host(variable: str) -> None:
    assert host_values({variable: "node07:29400"}) == ["node07"]


@pytest.mark.parametrize(
    ("piece", "host"),
    [
        ("node03", "node03"),
        ("node03:29400", "node03"),
        ("bob@node03", "node03"),
        ("tcp://node03:29400", "node03"),
        ("etcd://node03/torchelastic", "node03"),
        ("etcd://bob@node03:2379/torchelastic/run1", "node03"),
        ("[fd00::1]:29400", "fd00::1"),
        ("fd00::1", "fd00::1"),
    ],
)
def test_the_host_of_a_host_variables_value(piece: str, host: str) -> None:
    """torchrun's endpoints (host:port, a URL with a path), NCCL's address, and IPv6 with or without port."""
    assert redact._host_of(piece) == host


def test_values_that_are_not_text_or_are_empty_are_skipped_and_the_rest_still_read() -> None:
    """A report read back is JSON: a variable may hold a number or null, and the ones after it count."""
    variables = {"EMPTY": "", "NCCL_COMM_ID": 29500, "MASTER_PORT": 29500, "MASTER_ADDR": None}
    assert host_values({**variables, "PET_MASTER_ADDR": "node01", "URL": "https://hub.example.com/x"}) == [
        "node01",
        "hub.example.com",
    ]


def test_a_value_is_read_for_hosts_up_to_its_4096th_character() -> None:
    """The bound that keeps a huge variable cheap: what starts before it counts, cut where the bound cuts."""
    listed = "x" * 4090 + ",host1"  # 4096 characters
    assert host_values({"MASTER_ADDR": listed + "2,host3"}) == ["x" * 4090, "host1"]
    url = " " * (4096 - len("http://host1")) + "http://host1"
    assert host_values({"SOME_URL": url + "2/x"}) == ["host1"]


def test_the_hosts_a_report_names() -> None:
    """Under "hostname" anywhere (not a number, not empty), and in the environment's variables."""
    data = {
        "host": {"hostname": "node-a"},
        "cluster": [{"hostname": "node-b"}, {"hostname": ""}, {"hostname": 7}, ("x", {"hostname": "node-c"})],
        "facts": {"env": {"variables": {"MASTER_ADDR": "node-m:29500", "NCCL_DEBUG": "INFO"}}},
    }
    assert sorted(report_hosts(data)) == ["node-a", "node-b", "node-c", "node-m"]
    assert sorted(hostnames_in(data)) == ["node-a", "node-b", "node-c"]
    for broken in (
        {"facts": []},
        {"facts": {"env": "x"}},
        {"facts": {"env": {"variables": ["MASTER_ADDR"]}}},
    ):
        assert report_hosts(broken) == []
    assert report_hosts(["not", "a", "report"]) == []


# ---------------------------------------------------------------- the user's name, from the system


@pytest.fixture
def accounts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three answers to "who runs this?", each different: the password database, the login, getpass."""
    monkeypatch.setattr(os, "getlogin", lambda: "loginbob", raising=False)
    monkeypatch.setattr(getpass, "getuser", lambda: "getpassbob")
    if sys.platform != "win32":
        import pwd

        monkeypatch.setattr(pwd, "getpwuid", lambda uid: SimpleNamespace(pw_name="pwbob"))


@POSIX
@pytest.mark.usefixtures("accounts")
@pytest.mark.parametrize("platform", ["linux", "darwin", "freebsd14", "zos"])
def test_on_posix_the_user_is_the_password_databases(monkeypatch: pytest.MonkeyPatch, platform: str) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    assert system_user() == "pwbob"


@pytest.mark.usefixtures("accounts")
def test_on_windows_the_user_is_the_account_the_process_runs_as(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "".join(["win", "32"]))  # equal to "win32", not the same object
    assert system_user() == "loginbob"


@POSIX
@pytest.mark.usefixtures("accounts")
@pytest.mark.parametrize("platform", ["linux", "win32"])
def test_without_a_system_answer_the_user_is_the_one_getpass_gives(
    monkeypatch: pytest.MonkeyPatch, platform: str
) -> None:
    """A uid without a password entry (a container run with --user 12345), a Windows login that fails."""
    import pwd

    def no_entry(uid: int) -> Any:
        raise KeyError(uid)

    def no_login() -> str:
        raise OSError(errno.ENXIO, "no controlling terminal")

    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    monkeypatch.setattr(os, "getlogin", no_login)
    monkeypatch.setattr(sys, "platform", platform)
    assert system_user() == "getpassbob"


@POSIX
@pytest.mark.usefixtures("accounts")
@pytest.mark.parametrize("error", [OSError, KeyError, ImportError])
def test_without_any_answer_there_is_no_user_name(
    monkeypatch: pytest.MonkeyPatch, error: type[Exception]
) -> None:
    """getpass.getuser raises OSError (3.13), KeyError (before) or ImportError (no pwd): no user, no crash."""
    import pwd

    def fails(*args: Any) -> Any:
        raise error("no user")

    monkeypatch.setattr(pwd, "getpwuid", fails)
    monkeypatch.setattr(getpass, "getuser", fails)
    assert system_user() is None


# ---------------------------------------------------------------- a report's structure


def test_a_report_read_back_from_json_keeps_its_structure() -> None:
    """``report --from`` reads JSON (its keys are new strings, not the code's): verdict ids stay (a check of
    the plugin acme, run by the user acme, is still acme.leaky), the host gets a pseudonym even where its name
    identifies no one, and a key after "verdicts" or before "host" is content like any other."""
    text = json.dumps(
        {
            "created_at": "2026-12-05T16:00:00Z",
            "cluster": ["acme was here"],
            "host": {"hostname": "localhost", "user": "acme"},
            "notes": "acme",
            "verdicts": [{"id": "acme.leaky", "title": "Acme leaks", "status": "warn", "message": "by acme"}],
            "zones": "acme",
        }
    )
    user = PSEUDONYMS.of("user", "acme")
    redactor = Redactor(Identity.of([], ["acme"], []), pseudonyms=PSEUDONYMS)
    redacted = redact._rewrite(json.loads(text), redactor, redacted=True)
    assert redacted == {
        "created_at": "2026-12-05T16:00:00Z",
        "cluster": [f"{user} was here"],
        "host": {"hostname": PSEUDONYMS.of("host", "localhost"), "user": user},
        "notes": user,
        "verdicts": [{"id": "acme.leaky", "title": "Acme leaks", "status": "warn", "message": f"by {user}"}],
        "zones": user,
        "redacted": True,
    }


def test_a_host_without_a_hostname_gets_none() -> None:
    redactor = Redactor(Identity(), pseudonyms=PSEUDONYMS)
    for host in ({"executable": "/usr/bin/python3"}, {"hostname": "", "executable": "/usr/bin/python3"}):
        assert redact._rewrite({"host": host}, redactor, redacted=True) == {"host": host, "redacted": True}


def test_redact_report_gives_every_named_host_a_pseudonym() -> None:
    data = {"host": {"hostname": "node-a"}, "facts": {"env": {"variables": {"MASTER_ADDR": "node-m:29500"}}}}
    redacted = json.dumps(redact_report(data, Identity()))
    assert "node-a" not in redacted and "node-m" not in redacted
