"""mjai JSONL records (one event per line, plain or gzip): reading, checking, writing."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from game.cli import write_atomic
from game.errors import OutputError, RecordError
from game.records.events import event_problem


def read_mjai(text: str, path: str | None = None) -> list[dict]:
    """Events of an mjai JSONL text, each checked field by field (``event_problem``: seats,
    tile names with ``?`` for hidden, starting hands, scores).

    Raises :class:`RecordError` naming the line for malformed JSON, an event with an unknown
    ``type`` or a malformed field, and a record that stops before ``end_game`` (truncated).
    """
    events: list[dict] = []
    last_line = 0
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        last_line = n
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"malformed JSON ({exc.msg})", path=path, position=f"line {n}") from None
        problem = event_problem(event)
        if problem is not None:
            raise RecordError(f"malformed event: {problem}", path=path, position=f"line {n}")
        events.append(event)
    if not events or events[-1]["type"] != "end_game":
        raise RecordError("record stops before end_game (truncated?)", path=path,
                          position=f"line {last_line + 1}")
    return events


def write_mjai(events: list[dict], path: str | Path) -> None:
    """Write events as mjai JSONL, gzip-compressed when the name ends in ``.gz``.

    The file appears whole or not at all (a temp file beside it, then a rename), so an
    interrupted write never leaves half a record. Raises :class:`OutputError` when ``path``
    is a directory, its folder does not exist or it cannot be written.
    """
    path = Path(path)
    if path.is_dir():
        raise OutputError("is a directory; name the file to write", path=str(path))
    if not path.parent.is_dir():
        raise OutputError(f"folder {str(path.parent)!r} does not exist", path=str(path))
    text = "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)
    data = text.encode("utf-8")
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise OutputError(f"cannot write: {exc.strerror or exc}", path=str(path)) from None
