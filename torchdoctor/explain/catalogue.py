"""Where explanations come from: the catalogues in the entry-point group ``torchdoctor.explanations``.

:func:`installed` imports them in this process (for code that already trusts them: the benchmark, a library
caller); :func:`explain_in_worker` is what the CLI does: each catalogue is imported and matched in the worker
under a deadline, so a catalogue that hangs (a regular expression that backtracks for ever) or crashes costs
only its own explanations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from torchdoctor.checking import registry
from torchdoctor.explain.model import Entry, Explanation
from torchdoctor.plugin import resolve

EXPLAIN_TIMEOUT_S = 10.0
ANSWER = "torchdoctor.explain.catalogue:answer"
"""The worker target that matches a text against one catalogue (:func:`answer`)."""


class CatalogueError(ValueError):
    """An entry point of torchdoctor.explanations that is not a catalogue; the message names it."""


def load(entry: registry.Entry) -> tuple[Entry, ...]:
    """Import one catalogue here: a tuple of explain Entry objects."""
    try:
        obj: object = resolve(entry.value)
    except Exception as exc:
        raise CatalogueError(f"{entry.display_name} failed to import: {type(exc).__name__}: {exc}") from None
    if not isinstance(obj, tuple | list) or not all(isinstance(e, Entry) for e in obj):
        raise CatalogueError(f"{entry.display_name}: '{entry.value}' is not a tuple of explain Entry objects")
    return tuple(obj)


def installed() -> list[Entry]:
    """Every installed catalogue's entries, imported in this process; the first of an id wins."""
    found: dict[str, Entry] = {}
    for entry in registry.find_entries(registry.EXPLANATIONS):
        for item in load(entry):
            found.setdefault(item.id, item)
    return list(found.values())


@dataclass
class Matched:
    explanations: list[Explanation]
    problems: list[str]
    """One line per catalogue that could not answer (it is left out, the others still are)."""


class Host(Protocol):
    def hosted(self, target: str, request: dict[str, Any], timeout: float) -> dict[str, Any]: ...


def asking(host: Host) -> Callable[[dict[str, object]], dict[str, object]]:
    """The call :func:`explain_in_worker` makes: one catalogue matched in ``host``'s worker, under a
    deadline."""
    return lambda request: host.hosted(ANSWER, dict(request), EXPLAIN_TIMEOUT_S)


def explain_in_worker(text: str, call: Callable[[dict[str, object]], dict[str, object]]) -> Matched:
    """Match ``text`` against every installed catalogue, each through ``call`` (a worker request that raises
    runner.HostedError when the worker gives no answer); the last error in the text first."""
    from torchdoctor.checking.runner import HostedError

    answered: list[tuple[Explanation, bool]] = []
    problems: list[str] = []
    seen: set[str] = set()
    for entry in registry.find_entries(registry.EXPLANATIONS):
        try:
            answer = call({"entry": entry.to_json(), "text": text})
        except HostedError as exc:
            problems.append(
                f"the explanations of {entry.display_name} gave no answer: {exc.error.get('message')}"
            )
            continue
        if "failure" in answer:
            problems.append(str(answer["failure"]))
            continue
        for data in answer.get("explanations") or []:  # type: ignore[attr-defined]
            try:
                found = Explanation.from_json(data)
            except (KeyError, TypeError, ValueError) as exc:
                problems.append(f"{entry.display_name} answered an explanation that is not one: {exc}")
                continue
            if found.id not in seen:
                seen.add(found.id)
                answered.append((found, answer.get("of_messages") is not False))
    # symptoms explain a text only where no catalogue recognised a message in it, as in one catalogue
    if any(of_messages for _, of_messages in answered):
        answered = [pair for pair in answered if pair[1]]
    explanations = [found for found, _ in answered]
    return Matched(sorted(explanations, key=lambda e: e.position, reverse=True), problems)


def match_here(text: str, entries: Sequence[Entry]) -> dict[str, object]:
    """``{"explanations": [...], "of_messages": bool}``: the explanations of ``text``, and whether they are
    of messages rather than of symptoms alone; a text that is an entry's id (``torchdoctor explain
    load.map_location``, as ``torchdoctor lint --show-fixes`` refers to them) is that entry."""
    from torchdoctor.explain.matcher import explain_marked

    named = [e for e in entries if e.id == text.strip()]
    if named:
        entry = named[0]
        found = Explanation(entry.id, entry.title, entry.id, 0, (), entry.cause, entry.fix, entry.check)
        return {"explanations": [found.to_json()], "of_messages": True}
    explanations, of_messages = explain_marked(text, entries)
    return {"explanations": [e.to_json() for e in explanations], "of_messages": of_messages}


_answered: dict[tuple[str, str], tuple[Entry, ...] | str] = {}


def answer(request: Mapping[str, Any]) -> dict[str, Any]:
    """In the worker: match the request's text against one catalogue, ``{"explanations": [...]}``, or
    ``{"failure": ...}`` when it cannot be imported. Each catalogue is imported once per worker."""
    entry = registry.Entry.from_json(request["entry"])
    key = (entry.id, entry.value)
    if key not in _answered:
        try:
            _answered[key] = load(entry)
        except CatalogueError as exc:
            _answered[key] = str(exc)
    loaded = _answered[key]
    if isinstance(loaded, str):
        return {"failure": loaded}
    return match_here(str(request.get("text") or ""), loaded)
