"""``checks/install/data/cuda_drivers.json`` from ``tools/sources/nvidia_drivers.json``, NVIDIA's documents
as read.

The source holds editions of Table 3 of the CUDA Toolkit Release Notes ("CUDA Toolkit and Corresponding Driver
Versions"), newest first, each row as the edition prints it (GA, RC and Update rows alike). The driver a build
of CUDA X.Y needs is the GA row of X.Y (the first release of that version: a row labelled GA, else the row
with the lowest driver, since an RC row precedes its GA and an Update row follows it) in the newest edition
that lists X.Y; an older edition that says otherwise is kept in ``also`` beside it. The CUDA release a
retired architecture's last driver branch supports is the newest X.Y whose GA driver belongs to that branch
or an older one, read from the same rows, unless the source states it (a branch older than the editions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from packaging.version import Version

TABLE3 = "NVIDIA CUDA Toolkit Release Notes, Table 3 'CUDA Toolkit and Corresponding Driver Versions'"


class DriverSourceError(ValueError):
    """The source cannot be read as the generator expects; the text says where."""


def _driver_key(driver: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in driver.split("."))
    except ValueError:
        raise DriverSourceError(f"not a driver version: {driver!r}") from None


def _ga_row(rows: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    labelled = [row for row in rows if " GA" in f" {row['label']} " and "GA2" not in row["label"]]
    chosen = labelled or rows
    return min(chosen, key=lambda row: _driver_key(row["linux"]))


def _row_source(edition: Mapping[str, Any], row: Mapping[str, Any]) -> str:
    text = f"{TABLE3}, {edition['edition']} ({edition['url']}): the row '{row['label']}'"
    if edition.get("note"):
        text += f"; {edition['note']}"
    return text


def min_driver(editions: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The driver each CUDA version's builds need, per OS, with the edition and row it was read from."""
    chosen: dict[str, dict[str, Any]] = {}
    for edition in editions:
        by_version: dict[str, list[Mapping[str, Any]]] = {}
        for row in edition.get("rows") or []:
            by_version.setdefault(str(row["cuda"]), []).append(row)
        for cuda, rows in by_version.items():
            ga = _ga_row(rows)
            drivers = {os: ga[os] for os in ("linux", "windows") if ga.get(os)}
            if cuda not in chosen:
                chosen[cuda] = {**drivers, "source": _row_source(edition, ga)}
                continue
            if any(chosen[cuda].get(os) != value for os, value in drivers.items()):
                chosen[cuda].setdefault("also", []).append(
                    {**drivers, "source": _row_source(edition, ga), "loses_to": "the newer edition"}
                )
    return {cuda: chosen[cuda] for cuda in sorted(chosen, key=Version)}


def branch_cuda(branch: str, drivers: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The newest CUDA version whose GA Linux driver is of this branch or an older one."""
    fitting = [cuda for cuda, row in drivers.items() if _driver_key(row["linux"])[0] <= int(branch)]
    return max(fitting, key=Version) if fitting else None


def last_driver_branch(
    branches: Mapping[str, Mapping[str, Any]], drivers: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for family, given in branches.items():
        branch = str(given["branch"])
        derived = branch_cuda(branch, drivers)
        stated = given.get("cuda")
        if stated and derived and derived != stated:
            raise DriverSourceError(
                f"last_driver_branch {family}: the source says R{branch} supports CUDA {stated}, "
                f"Table 3 gives {derived}"
            )
        cuda = stated or derived
        if cuda is None:
            raise DriverSourceError(
                f"last_driver_branch {family}: no Table 3 row for R{branch} and no 'cuda' given"
            )
        source = str(given["source"])
        if not stated:
            needs = drivers[cuda]["linux"]
            source += f"; R{branch}'s drivers run CUDA {cuda} (Table 3: CUDA {cuda} GA needs {needs})"
        rows[family] = {"branch": branch, "driver": branch, "cuda": cuda, "source": source}
    return rows


def drivers_table(source: Mapping[str, Any]) -> dict[str, Any]:
    """cuda_drivers.json as a dict."""
    try:
        drivers = min_driver(source["table3"])
        return {
            "source": source["source"].replace(
                "tools/driver_table.py makes checks/install/data/cuda_drivers.json from it.",
                "Made by tools/update_tables.py from tools/sources/nvidia_drivers.json.",
            ),
            "min_driver": drivers,
            "minor_compat_floor": dict(source["minor_compat_floor"]),
            "last_driver_branch": last_driver_branch(source["last_driver_branch"], drivers),
            "toolkit_targets": dict(source["toolkit_targets"]),
        }
    except (KeyError, TypeError) as error:
        raise DriverSourceError(f"missing or malformed entry: {error}") from None
