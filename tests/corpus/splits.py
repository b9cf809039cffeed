"""The one split of every corpus: a repository's material sits in ``dev`` or in the frozen ``test`` split,
decided by a hash of its name alone, so one repository never sits on both sides and adding material never
moves old records."""

from __future__ import annotations

import hashlib

SPLITS = ("dev", "test")


def split_of(repo: str) -> str:
    """``"owner/name"`` -> ``"test"`` for about a third of repositories, ``"dev"`` for the rest.

    The side is sha256 of the lowercased name: ``test`` when its first 8 hex digits, read as an integer, are a
    multiple of 3. GitHub names are case-insensitive, so ``Owner/Name`` and ``owner/name`` land together.
    """
    digest = hashlib.sha256(repo.strip().lower().encode("utf-8")).hexdigest()
    return "test" if int(digest[:8], 16) % 3 == 0 else "dev"
