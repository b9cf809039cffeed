"""Redaction of what a report shares: secrets, credentials in URLs, the home directory, the user name, the
hostname and GPU UUIDs.

One :class:`Redactor` serves every output: :func:`redact_report` rewrites a report's JSON data once, by key,
before any renderer sees it, and :mod:`torchdoctor.output.streams` passes every line any command prints
through
:meth:`Redactor.text` on its way out. The rule for secret-looking names is the one the
``env`` probe applies when it records variables (``torchdoctor.machine.envvars``), so a value that the probe
would not record never reaches a report through any other fact either.

Lessons applied (research/anchors.md, complaint 5): an allowlist of variables plus a mask on secret-looking
names (vLLM PR #9293, flashinfer PR #4007), ``$HOME`` as ``~`` (envinfo), the hostname and the user name
replaced (gpustat #168), GPU UUIDs shortened (collect_env strips them).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REDACTED = "<redacted>"
HOME_PLACEHOLDER = "~"
PSEUDONYM = re.compile(r"<(?:host|user)-[0-9a-f]{6,64}>")
"""What a host or user name becomes: ``<host-3f9a2c>``, ``<user-07be41>``. The same name always gets the same
pseudonym on one machine, run after run (a CI log tells a flaky node from another), and two names never
share one; a pseudonym is a keyed hash (HMAC-SHA-256) under a key drawn at random once for this user on this
machine and kept there (:func:`machine_key`), never in a report: it cannot be turned back into the name, nor
matched with the pseudonym the same name gets on another machine."""
KEY_BYTES = 32

_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|PASS(?:PHRASE)?\b|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|SIGNATURE|WEBHOOK"
    r"|(?:^|[_.-])(?:KEYS?|SIG|PWD|CREDS?)(?:$|[_.-])|APIKEY|ACCESSKEY",
    re.IGNORECASE,
)
# Names that look like identities but identify no one: replacing them would only garble the text. Beyond
# root and nobody, the users that images and services create under the same name everywhere (Ubuntu and
# Debian cloud images, EC2, Jupyter's docker-stacks, GitHub's hosted runners, dev containers).
_ANONYMOUS_USERS = frozenset(
    {"root", "nobody", "ubuntu", "debian", "centos", "fedora", "ec2-user", "admin", "user", "jovyan"}
    | {"runner", "vscode", "codespace"}
)
_ANONYMOUS_HOSTS = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})
# Names that are words of what torchdoctor reports on: a user called torch or a host called h100 identifies no
# one, and replacing the word in every output ("<user-07be41>.build", "NVIDIA <host-3f9a2c> PCIe") would
# garble the report. GPU model designations (h100, a100, rtx4090, mi300x, gb200, h100x8 for eight of them)
# and the names of the software and hardware in every report.
_GPU_MODEL = re.compile(r"(?:rtx|gtx|gb|gh|mi|[abhklmptv])\d{2,4}[a-z]{0,2}(?:x\d{1,2})*", re.IGNORECASE)
_VOCABULARY = frozenset(
    {"torch", "pytorch", "torchvision", "torchaudio", "triton", "cuda", "cudnn", "cublas", "nccl", "gloo"}
    | {"nvidia", "nvml", "rocm", "hip", "mps", "xpu", "gpu", "gpus", "cpu", "python", "pip", "conda"}
    | {"linux", "windows", "darwin", "macos", "torchdoctor", "torchrun"}
)

# Every pattern below runs in time linear in the text: a repeated part never overlaps what follows it, and a
# pattern that scans a run of characters can start only where such a run starts (a lookbehind on the same
# class), or scans a bounded number of them. tests/output/test_redact.py measures it.

# scheme://userinfo@host: greedy up to the authority's last '@', so a password holding '@' goes too. The
# scheme is at most 32 characters (bounded: it may start inside a longer run of its characters).
_URL_CREDENTIALS = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]{0,31}://)[^\s/?#@]*(?:@[^\s/?#@]*)*@")
# ?name=value, &name=value and #name=value (OAuth's implicit flow puts #access_token= in the fragment).
_QUERY_PARAMETER = re.compile(r"(?P<lead>[?&;#])(?P<name>[A-Za-z0-9_.\-\[\]]+)=(?P<value>[^&;#\s\"']*)")
# NAME=value and NAME: value; a value goes on over commas (API_KEYS=k1,k2) up to the next NAME= or NAME:
# (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128 is two pairs).
_ASSIGNMENT = re.compile(
    r"(?P<lead>(?<![A-Za-z0-9_.-])(?:--)?)(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)(?P<sep>=|: ?)"
    r"(?P<value>[^\s,;\"']+(?:,(?![A-Za-z_][A-Za-z0-9_.-]*[=:])[^\s,;\"']+)*)"
)
# Credential formats that identify themselves, whatever variable or text holds them; each starts where a run
# of token characters starts.
_TOKEN_SHAPES = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    r"gh[pousr]_[A-Za-z0-9]{36,}"  # GitHub tokens
    r"|github_pat_[A-Za-z0-9_]{40,}"
    r"|glpat-[A-Za-z0-9_-]{20,}"  # GitLab personal access tokens
    r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face access tokens
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"  # AWS access key ids
    r"|AIza[0-9A-Za-z_-]{35}"  # Google API keys
    r"|xox[abposre]-[A-Za-z0-9-]{10,}"  # Slack bot, user, app, refresh... tokens
    r"|xoxe\.xox[a-z]-[A-Za-z0-9-]{10,}"  # Slack rotating tokens
    r"|xapp-[A-Za-z0-9-]{10,}"  # Slack app-level tokens
    r"|npm_[A-Za-z0-9]{36,}"  # npm access tokens
    r"|pypi-[A-Za-z0-9_-]{50,}"  # PyPI API tokens
    r"|[rs]k_live_[A-Za-z0-9]{20,}"  # Stripe secret and restricted keys
    r"|sk-[A-Za-z0-9_-]{20,}"  # OpenAI-style secret keys (sk-proj-, sk-ant-...)
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"  # JSON web tokens
    r")"
)
# URLs whose path is the credential: Slack and Discord webhooks.
_SECRET_PATH = re.compile(
    r"(?P<lead>hooks\.slack\.com/(?:services|workflows|triggers)/|discord(?:app)?\.com/api/webhooks/)"
    r"[^\s\"'<>]+",
    re.IGNORECASE,
)
# An HTTP Authorization header's whole value (scheme and credentials), and a bearer token anywhere.
_AUTHORIZATION = re.compile(
    r"(?P<lead>\b(?:Proxy-)?Authorization\s*[:=]\s*)(?:[A-Za-z]+\s+)?[^\s,;\"']+"
    r"|(?P<bearer>\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}",
    re.IGNORECASE,
)
# Armored blocks of any kind (PEM keys and certificates, PGP key blocks and messages), to their END line or,
# cut off, to the end of the text: a block is never worth keeping in a report.
_ARMORED_BLOCK = re.compile(
    r"-----BEGIN (?P<kind>[A-Z0-9 ]{1,64})-----.*?(?:-----END (?P=kind)-----|\Z)", re.DOTALL
)
# user:password@host without a scheme (MASTER_ADDR=bob:pw@node01, rsync and scp targets).
_USERINFO = re.compile(r"(?<![\w/:.@+-])[\w.+-]+:[^\s/@:]*@(?=[\w\[])")
# GPU-/MIG- UUIDs and bare UUIDs (torch prints them without the prefix) keep their first 8 hex digits:
# still a valid prefix for CUDA_VISIBLE_DEVICES and nvidia-smi -i, no longer a hardware serial.
_UUID = re.compile(
    r"(?<![0-9A-Fa-f])(?P<prefix>(?:GPU|MIG)-)?(?P<head>[0-9a-fA-F]{8})"
    r"-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Fa-f])"
)


PATH_LISTS = frozenset({"PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "DYLD_LIBRARY_PATH", "CPATH"})
"""Variables that hold lists of paths: redacted entry by entry, so one entry's text cannot hide another's."""


def is_secret_name(name: str) -> bool:
    """Whether a variable, key or parameter name looks like it holds a secret (TOKEN, KEY, PASSWORD...)."""
    return bool(_SECRET_NAME.search(name))


def strip_secrets(text: str) -> str:
    """``text`` without credentials: in URLs, in secret-looking ``NAME=value`` pairs and query parameters,
    in Authorization headers, and in self-identifying token formats (GitHub, Hugging Face, AWS...)."""
    text = _ARMORED_BLOCK.sub(REDACTED, text)
    text = _URL_CREDENTIALS.sub(lambda m: m["scheme"], text)
    text = _USERINFO.sub("", text)
    text = _QUERY_PARAMETER.sub(_masked_parameter, text)
    text = _AUTHORIZATION.sub(lambda m: f"{m['lead'] or m['bearer']}{REDACTED}", text)
    text = _ASSIGNMENT.sub(_masked_assignment, text)
    text = _SECRET_PATH.sub(lambda m: f"{m['lead']}{REDACTED}", text)
    return _TOKEN_SHAPES.sub(REDACTED, text)


def strip_value(name: str, value: str) -> str:
    """The value of variable or key ``name`` without credentials: a path list entry by entry."""
    if name.upper() in PATH_LISTS:
        return os.pathsep.join(strip_secrets(entry) for entry in value.split(os.pathsep))
    return strip_secrets(value)


def command_line(args: Iterable[str], own: bool) -> str:
    """A process's command line as a report may show it, on one line: another user's process by its program
    name only; this user's own as :func:`masked_arguments` gives it."""
    words = [" ".join(str(arg).split()) for arg in args]
    if not words:
        return ""
    if not own:
        return os.path.basename(words[0])
    return " ".join(masked_arguments(words))


def masked_arguments(args: Iterable[str]) -> list[str]:
    """This user's own command line, argument by argument: credentials removed and the argument after a
    secret-looking flag (``--token X``) masked; nothing else changed."""
    words = [str(arg) for arg in args]
    shown: list[str] = []
    for index, word in enumerate(words):
        flag = words[index - 1].strip() if index else ""
        if (
            flag.startswith("-")
            and "=" not in flag
            and is_secret_name(flag.lstrip("-"))
            and not word.startswith("-")
        ):
            shown.append(REDACTED)
        else:
            shown.append(strip_secrets(word))
    return shown


@dataclass(frozen=True)
class Identity:
    """What identifies the person and the machine behind a report: replaced wherever it appears."""

    homes: tuple[str, ...] = ()
    users: tuple[str, ...] = ()
    hostnames: tuple[str, ...] = ()

    @classmethod
    def current(cls, extra_hostnames: Iterable[str] = ()) -> Identity:
        """This process's home directory, user name and hostname (no DNS lookup: it could hang)."""
        homes: list[str] = []
        try:
            home = Path.home()
        except (RuntimeError, KeyError):
            home = None
        if home is not None:
            homes += [str(home), os.path.realpath(home)]
        # The system's name for this user, and the names $USER and $LOGNAME claim: a report names none.
        users = [name for name in (system_user(), os.environ.get("USER"), os.environ.get("LOGNAME")) if name]
        # here: a worker that only reads the rules (torchdoctor.machine.envvars) needs none of it
        import socket

        hosts = [socket.gethostname(), *host_values(os.environ), *extra_hostnames]
        return cls.of(homes, users, hosts)

    @classmethod
    def of(cls, homes: Iterable[str], users: Iterable[str], hostnames: Iterable[str]) -> Identity:
        """An identity without the values that identify no one (``/``, root, localhost, empty names); a
        hostname comes with its short name (``gpu-node-17`` of ``gpu-node-17.corp.example.com``)."""
        names = [
            h
            for name in hostnames
            for h in ((name,) if _is_address(name) else (name, name.split(".")[0]))
            if not _is_loopback(h)
        ]
        return cls(
            homes=_distinct(h.rstrip("/") for h in homes if h.rstrip("/")),
            users=_distinct(u for u in users if _names_someone(u) and u.lower() not in _ANONYMOUS_USERS),
            hostnames=_distinct(h for h in names if _names_someone(h) and h.lower() not in _ANONYMOUS_HOSTS),
        )

    def with_hostnames(self, hostnames: Iterable[str]) -> Identity:
        """This identity and the hosts ``hostnames`` too (the other machines a report or a diff names)."""
        more = Identity.of((), (), hostnames).hostnames
        return Identity(self.homes, self.users, _distinct([*self.hostnames, *more]))


def _names_someone(name: str) -> bool:
    """Two characters at least, and not a number, a JSON word or a word of what torchdoctor reports on
    (replacing those would garble every number, every JSON document and every report printed)."""
    return (
        len(name) >= 2
        and not name.isdigit()
        and name.lower() not in ("true", "false", "null")
        and name.casefold() not in _VOCABULARY
        and not _GPU_MODEL.fullmatch(name)
        and not PSEUDONYM.fullmatch(name)
    )


def _is_address(name: str) -> bool:
    """An IP address: kept whole (its first 'label' is a number that identifies nothing on its own)."""
    return all(part.isdigit() for part in name.split(".")) or ":" in name


def _is_loopback(name: str) -> bool:
    """This machine's loopback or any-address: it names no machine."""
    return name.startswith("127.") or name in ("::1", "0.0.0.0", "::", "[::1]")


HOST_VARIABLES = frozenset(
    {"MASTER_ADDR", "PET_MASTER_ADDR", "PET_RDZV_ENDPOINT", "NCCL_COMM_ID", "SLURMD_NODENAME", "HOSTNAME"}
    | {"SLURM_LAUNCH_NODE_IPADDR", "SLURM_SRUN_COMM_HOST", "TORCHELASTIC_RDZV_ENDPOINT"}
)
"""Variables whose values are hosts (``host``, ``host:port``, lists of them): MASTER_ADDR, the rendezvous
endpoints of torchrun, NCCL's bootstrap address, SLURM's node."""
_URL_HOST = re.compile(
    r"(?<![\w.+-])[a-z][a-z0-9+.-]{1,15}://(?:[^\s/@]{0,256}@)?(?P<host>\[[0-9a-f:]{2,45}\]|[\w.-]{1,253})",
    re.IGNORECASE,
)


def host_values(variables: Mapping[str, Any]) -> list[str]:
    """The hosts environment variables name, by what their values are: each value of a host variable
    (``host``, ``host:port``, ``user@host``, a comma-separated list), and the host of any URL in any value."""
    found: list[str] = []
    for name, value in variables.items():
        if not isinstance(value, str) or not value:
            continue
        if name in HOST_VARIABLES:
            for piece in re.split(r"[,\s]+", value[:4096]):
                host = _host_of(piece)
                if host:
                    found.append(host)
        found += [m["host"].strip("[]") for m in _URL_HOST.finditer(value[:4096])]
    return found


def _host_of(piece: str) -> str:
    """``node03`` of ``node03:29400``, ``bob@node03`` or ``tcp://node03:29400``; an IPv6 address of
    ``[fd00::1]:29400``."""
    piece = piece.rpartition("://")[2].rpartition("@")[2].split("/", 1)[0]
    if piece.startswith("["):
        return piece[1:].partition("]")[0]
    return piece.rpartition(":")[0] if piece.count(":") == 1 else piece


def system_user() -> str | None:
    """The name of this process's user as the system knows it: from the password database, not from $USER
    or $LOGNAME, which anyone can set to something else (Windows, which has no password database: the
    account the process runs as, GetUserNameW)."""
    if sys.platform == "win32":
        with contextlib.suppress(OSError):
            return os.getlogin()
    else:
        with contextlib.suppress(ImportError, KeyError, OSError):
            import pwd

            return pwd.getpwuid(os.getuid()).pw_name
    try:
        import getpass

        return getpass.getuser()
    except (OSError, KeyError, ImportError):
        return None


def _distinct(values: Iterable[str]) -> tuple[str, ...]:
    # Longest first, so that a FQDN goes before its short name and /home/alice/x before /home/alice.
    return tuple(sorted(dict.fromkeys(values), key=len, reverse=True))


class Pseudonyms:
    """Stable, distinct pseudonyms under one secret key: a name (any case) always gets the same one, two
    names never the same one (a collision of the hash's first digits takes more digits)."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._given: dict[tuple[str, str], str] = {}
        self._owner: dict[str, tuple[str, str]] = {}

    def of(self, kind: str, name: str) -> str:
        wanted = (kind, name.casefold())
        known = self._given.get(wanted)
        if known is not None:
            return known
        message = f"{kind}\0{wanted[1]}".encode("utf-8", "surrogatepass")
        import hashlib
        import hmac

        digest = hmac.new(self._key, message, hashlib.sha256).hexdigest()
        length = 6
        while self._owner.get(f"<{kind}-{digest[:length]}>", wanted) != wanted:
            length += 2
        pseudonym = f"<{kind}-{digest[:length]}>"
        self._given[wanted], self._owner[pseudonym] = pseudonym, wanted
        return pseudonym


def key_path() -> Path:
    """Where this user's pseudonym key is kept: torchdoctor's folder of ``$XDG_STATE_HOME`` (by default
    ``~/.local/state``)."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "torchdoctor" / "pseudonyms.key"


def machine_key() -> bytes:
    """This user's pseudonym key on this machine: read from :func:`key_path`, made there once (a regular
    file of this user, mode 0600, in a folder of mode 0700); a key for this process alone where it can be
    neither read nor made (pseudonyms then change from run to run)."""
    path = key_path()
    for _ in range(2):
        try:
            return _read_key(path)
        except FileNotFoundError:
            pass
        except OSError:
            break
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except FileExistsError:
            continue  # made meanwhile by another torchdoctor: read that one
        except OSError:
            break
        key = os.urandom(KEY_BYTES)
        with os.fdopen(fd, "wb") as out:
            out.write(key)
        return key
    return os.urandom(KEY_BYTES)


def _read_key(path: Path) -> bytes:
    # O_NONBLOCK: a FIFO at the path is opened (and refused) at once, not waited on until a writer comes.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as source:
        info = os.fstat(source.fileno())
        if not stat.S_ISREG(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            raise PermissionError("not a regular file of this user")
        key = source.read(KEY_BYTES + 1)
    if len(key) != KEY_BYTES:
        raise PermissionError("not a key")
    return key


_process_pseudonyms: Pseudonyms | None = None


def process_pseudonyms() -> Pseudonyms:
    """This process's pseudonyms, under this machine's key (read once, when a first name needs one)."""
    global _process_pseudonyms
    if _process_pseudonyms is None:
        _process_pseudonyms = Pseudonyms(machine_key())
    return _process_pseudonyms


class Redactor:
    """Replaces secrets and identities in strings, and in every string (and key) of a JSON-like value."""

    def __init__(
        self, identity: Identity, shorten_uuids: bool = True, pseudonyms: Pseudonyms | None = None
    ) -> None:
        self.identity = identity
        self.shorten_uuids = shorten_uuids
        self._pseudonyms = pseudonyms
        self._homes = frozenset(identity.homes)
        # A FQDN and its short name, where that is a host of the identity too, are one host: one pseudonym.
        # An address is one whole: 10.0.0.7 and 10.0.0.8 are two hosts, neither of them the "host" 10.
        names = {h.casefold() for h in identity.hostnames}
        self._host_keys = {
            h.casefold(): (h.split(".")[0] if h.split(".")[0].casefold() in names else h)
            for h in identity.hostnames
        }
        self._users = frozenset(u.casefold() for u in identity.users)
        self._identity_pattern = _identity_pattern(identity)

    def text(self, value: str, key: str | None = None) -> str:
        value = strip_value(key or "", value)
        if self._identity_pattern is not None:
            value = self._identity_pattern.sub(self._placeholder, value)
        if not self.shorten_uuids:
            return value
        return _UUID.sub(lambda m: f"{m['prefix'] or ''}{m['head']}", value)

    def value(self, value: Any, key: str | None = None) -> Any:
        """A copy of ``value`` with every string redacted; the values of secret-looking keys replaced."""
        if isinstance(value, str):
            return REDACTED if key is not None and is_secret_name(key) and value else self.text(value, key)
        if isinstance(value, Mapping):
            return {self._key(k): self.value(v, str(k)) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        return value

    @property
    def pseudonyms(self) -> Pseudonyms:
        return self._pseudonyms or process_pseudonyms()

    def host(self, name: str) -> str:
        """The pseudonym of the host ``name`` (a pseudonym already, of a report redacted before: itself)."""
        if PSEUDONYM.fullmatch(name):
            return name
        return self.pseudonyms.of("host", self._host_keys.get(name.casefold(), name))

    def _key(self, key: Any) -> Any:
        return self.text(key) if isinstance(key, str) else key

    def _placeholder(self, match: re.Match[str]) -> str:
        found = match.group(0)
        if match.lastgroup == "kept":
            return found
        if found in self._homes:
            return HOME_PLACEHOLDER
        if found.casefold() in self._host_keys:
            return self.host(found)
        if found.casefold() in self._users:  # a user name with dots (alice.smith) is no host with a domain
            return self.pseudonyms.of("user", found)
        for head in _shorter(found):  # a known host with the domain that followed it
            if head.casefold() in self._host_keys:
                return self.host(head)
        return self.pseudonyms.of("user", found)


def _shorter(name: str) -> list[str]:
    """``a.b.c`` -> ``a.b``, ``a``: the names a host name with domain labels after it may be known by."""
    labels = name.split(".")
    return [".".join(labels[:n]) for n in range(len(labels) - 1, 0, -1)]


def _identity_pattern(identity: Identity) -> re.Pattern[str] | None:
    """One pass over all identities, so a placeholder put in (or one already there) is never matched again.

    A host or user name is replaced in any case and wherever no letter or digit touches it: as a word and
    as a part of a longer name (``node17-ib0``, ``/scratch/alice_ext``), not inside another word (``vm``
    in ``kvm``)."""
    parts: list[tuple[int, str]] = []
    # A home directory ends where a path component ends.
    parts += [(len(h), re.escape(h) + r"(?![A-Za-z0-9_.-])") for h in identity.homes]
    # A host name takes the domain labels that follow it (gpu-node-17 of gpu-node-17.corp.example.com, when
    # only the short name is known); an address and a user name stand alone.
    parts += [
        (len(n), rf"(?<![^\W_]){_caseless(n)}{'' if _is_address(n) else _DOMAIN}(?![^\W_])")
        for n in identity.hostnames
    ]
    parts += [(len(n), rf"(?<![^\W_]){_caseless(n)}(?![^\W_])") for n in identity.users]
    if not parts:
        return None
    ordered = "|".join(p for _, p in sorted(parts, key=lambda part: part[0], reverse=True))
    return re.compile(f"(?P<kept>{PSEUDONYM.pattern}|{re.escape(REDACTED)})|{ordered}")


_DOMAIN = r"(?:(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?){2,8})?"
"""Two to eight domain labels after a host name (a label as RFC 1123 has it): ``.corp.example.com``, not
the ``.ib0`` of an interface."""


def _caseless(name: str) -> str:
    """``name`` as a pattern of any case (home directories stay case-sensitive: paths are)."""
    return f"(?i:{re.escape(name)})"


def _masked_parameter(match: re.Match[str]) -> str:
    if match["value"] and is_secret_name(match["name"]):
        return f"{match['lead']}{match['name']}={REDACTED}"
    return match.group(0)


def _masked_assignment(match: re.Match[str]) -> str:
    if is_secret_name(match["name"]) and not match["value"].startswith(REDACTED):
        return f"{match['lead']}{match['name']}{match['sep']}{REDACTED}"
    return match.group(0)


# The parts of a report that are structure, not content: never rewritten.
_STRUCTURAL_VERDICT_KEYS = frozenset({"id", "title", "status", "duration_s"})
_STRUCTURAL_TOP_KEYS = frozenset({"schema_version", "tool", "created_at", "summary", "exit_code", "timings"})


def redact_report(data: Mapping[str, Any], identity: Identity | None = None) -> dict[str, Any]:
    """A copy of a report's JSON data with every secret and identity replaced, marked ``"redacted": true``.

    Check ids, statuses and the report's structure are left alone, so a redacted report still validates
    and can be judged again (``torchdoctor check --from``).
    """
    identity = (identity or Identity.current()).with_hostnames(report_hosts(data))
    return _rewrite(data, Redactor(identity), redacted=True)


def report_hosts(data: Any) -> list[str]:
    """Every host a report names: under a key ``hostname`` anywhere (the machine's own, the nodes of a
    cluster, the ranks of a dry run), and in the values of its environment variables (MASTER_ADDR, the
    rendezvous endpoints, URLs)."""
    facts = data.get("facts") if isinstance(data, Mapping) else None
    env = facts.get("env") if isinstance(facts, Mapping) else None
    variables = env.get("variables") if isinstance(env, Mapping) else None
    return [*hostnames_in(data), *host_values(variables if isinstance(variables, Mapping) else {})]


def hostnames_in(data: Any) -> list[str]:
    """Every string under a key ``hostname`` in a JSON-like value (the machine's own, the nodes of a
    cluster, the ranks of a dry run): each is a host to give a pseudonym."""
    found: list[str] = []
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            name = value.get("hostname")
            if isinstance(name, str) and name:
                found.append(name)
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
    return found


def strip_report(data: Mapping[str, Any]) -> dict[str, Any]:
    """What ``--no-redact`` shares: identities and UUIDs kept, credentials still removed (a secret
    variable's value and a credential inside a URL are never recorded, whatever the options)."""
    return _rewrite(data, Redactor(Identity(), shorten_uuids=False), redacted=False)


def _rewrite(data: Mapping[str, Any], redactor: Redactor, redacted: bool) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in data.items():
        if key in _STRUCTURAL_TOP_KEYS:
            result[key] = value
        elif key == "verdicts":
            result[key] = [_redact_verdict(redactor, verdict) for verdict in value]
        elif key == "host":
            result[key] = _redact_host(redactor, value) if redacted else redactor.value(value)
        else:
            result[key] = redactor.value(value, key)
    result["redacted"] = redacted
    return result


def _redact_verdict(redactor: Redactor, verdict: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: value if key in _STRUCTURAL_VERDICT_KEYS else redactor.value(value, key)
        for key, value in verdict.items()
    }


def _redact_host(redactor: Redactor, host: Mapping[str, Any]) -> dict[str, Any]:
    redacted = redactor.value(host)
    if isinstance(host.get("hostname"), str) and host["hostname"]:
        redacted["hostname"] = redactor.host(host["hostname"])
    return dict(redacted)
