"""Reading the package index: a project's file list (the JSON simple API, PEP 691) and a wheel's core metadata
(the ``<wheel-url>.metadata`` file of PEP 658). Every failure is an ``IndexUnreachable`` with one line of
text."""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request
import zipfile
from email.parser import HeaderParser
from pathlib import Path
from typing import Any

INDEX = "https://pypi.org/simple"
_ACCEPT = "application/vnd.pypi.simple.v1+json"
_TIMEOUT_S = 60.0
_MAX_BYTES = 64 * 1024 * 1024


class IndexUnreachable(Exception):
    """The index did not answer, or answered something that is not what was asked for."""


class Client:
    """Reads the index, keeping every answer in ``cache`` (a folder) when one is given, so a second run
    reads what the first one did."""

    def __init__(self, index: str = INDEX, cache: Path | None = None) -> None:
        self.index = index.rstrip("/")
        self.cache = cache

    def _get(self, url: str, accept: str | None = None) -> bytes:
        cached = self._cached(url)
        if cached is not None and cached.is_file():
            return cached.read_bytes()
        request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as answer:
                body: bytes = answer.read(_MAX_BYTES + 1)
        except urllib.error.HTTPError as error:
            raise IndexUnreachable(f"{url}: HTTP {error.code}") from None
        except (urllib.error.URLError, OSError, TimeoutError) as error:
            reason = getattr(error, "reason", error)
            raise IndexUnreachable(f"{url}: {reason}") from None
        if len(body) > _MAX_BYTES:
            raise IndexUnreachable(f"{url}: answer larger than {_MAX_BYTES} bytes")
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_bytes(body)
        return body

    def _cached(self, url: str) -> Path | None:
        if self.cache is None:
            return None
        name = url.split("://", 1)[-1].replace("/", "_")[-200:]
        return self.cache / name

    def files(self, project: str) -> list[dict[str, Any]]:
        """The project's files as the JSON simple API lists them (``filename``, ``url``, ``yanked``...)."""
        url = f"{self.index}/{project}/"
        try:
            page = json.loads(self._get(url, _ACCEPT))
        except ValueError:
            raise IndexUnreachable(f"{url}: not a JSON simple-API page") from None
        files = page.get("files") if isinstance(page, dict) else None
        if not isinstance(files, list):
            raise IndexUnreachable(f"{url}: no file list in the answer")
        return [f for f in files if isinstance(f, dict) and isinstance(f.get("filename"), str)]

    def requires_dist(self, wheel_url: str) -> list[str]:
        """The ``Requires-Dist`` lines of a wheel's core metadata."""
        text = self._get(f"{wheel_url}.metadata").decode("utf-8", errors="replace")
        headers = HeaderParser().parsestr(text, headersonly=True)
        if not headers.get("Name"):
            raise IndexUnreachable(f"{wheel_url}.metadata: not a core metadata file")
        return [" ".join(line.split()) for line in headers.get_all("Requires-Dist") or []]

    def byte_range(self, url: str, first: int, last: int) -> bytes:
        """Bytes ``first`` to ``last`` of a file (an HTTP range request)."""
        cached = self._cached(f"{url}@{first}-{last}")
        if cached is not None and cached.is_file():
            return cached.read_bytes()
        if last - first + 1 > _MAX_BYTES:
            raise IndexUnreachable(f"{url}: a range larger than {_MAX_BYTES} bytes was asked for")
        request = urllib.request.Request(url, headers={"Range": f"bytes={first}-{last}"})
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as answer:
                if answer.status != 206:
                    raise IndexUnreachable(f"{url}: the server does not answer byte ranges")
                body: bytes = answer.read(last - first + 1)
        except urllib.error.HTTPError as error:
            raise IndexUnreachable(f"{url}: HTTP {error.code}") from None
        except (urllib.error.URLError, OSError, TimeoutError) as error:
            raise IndexUnreachable(f"{url}: {getattr(error, 'reason', error)}") from None
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_bytes(body)
        return body


class _RangeFile(io.RawIOBase):
    """A remote file read with HTTP range requests, seekable, so ``zipfile`` reads one member of a wheel
    without downloading the rest."""

    def __init__(self, client: Client, url: str, size: int) -> None:
        self.client, self.url, self.size, self.position = client, url, size, 0

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = max(0, base + offset)
        return self.position

    def readinto(self, buffer: Any) -> int:
        end = min(self.size, self.position + len(buffer))
        if end <= self.position:
            return 0
        data = self.client.byte_range(self.url, self.position, end - 1)
        buffer[: len(data)] = data
        self.position += len(data)
        return len(data)


def wheel_member(client: Client, url: str, size: int, member: str) -> str | None:
    """The text of one file inside a remote wheel; None when the wheel has no such file."""
    try:
        with zipfile.ZipFile(io.BufferedReader(_RangeFile(client, url, size), 1 << 20)) as wheel:
            try:
                return wheel.read(member).decode("utf-8", errors="replace")
            except KeyError:
                return None
    except zipfile.BadZipFile:
        raise IndexUnreachable(f"{url}: not a zip file") from None
