"""Game records: Tenhou mjlog XML, tenhou.net/6 JSON and mjai JSONL, into one mjai stream.

Public API (the contract other packages build on):

* :func:`read_events` ``(path) -> list[dict]``: any of the three formats, plain or gzip,
  detected from the content; raises :class:`~game.errors.RecordError` naming file and
  position (line, round or XML tag index).
* :func:`write_mjai` ``(events, path)``: mjai JSONL, gzip when the name ends in ``.gz``.
* :func:`iter_record_files` ``(glob_or_paths) -> list[Path]``.
* :func:`player_names` ``(events) -> list[str]``: the four names of ``start_game``.
* :func:`game.records.mjlog.decode_meld` for the mjlog ``m`` attribute;
  :func:`game.records.check.check_events` / :func:`check_file` for the engine replay check.

The event stream's dialect is described in :mod:`game.records.events`.
"""
from __future__ import annotations

import glob as _glob
from collections.abc import Iterable
from pathlib import Path

from game.errors import RecordError
from game.records.mjai import read_mjai, write_mjai
from game.records.mjlog import decode_meld, read_mjlog
from game.records.source import MJAI, MJLOG, TENHOU6, detect_format, read_text
from game.records.tenhou6 import read_tenhou6

__all__ = ["read_events", "write_mjai", "iter_record_files", "player_names", "decode_meld", "read_text",
           "detect_format"]

_READERS = {MJLOG: read_mjlog, TENHOU6: read_tenhou6, MJAI: read_mjai}


def read_events(path: str | Path) -> list[dict]:
    """Canonical mjai events of a record file in any supported format (plain or gzip)."""
    text = read_text(path)
    fmt = detect_format(text, str(path))
    return _READERS[fmt](text, str(path))


def player_names(events: Iterable[dict]) -> list[str]:
    """The four player names of the record's ``start_game`` (empty strings where it gives none)."""
    first = next((e for e in events if e.get("type") == "start_game"), {})
    return list(first.get("names") or ["", "", "", ""])


def iter_record_files(glob_or_paths: str | Path | Iterable[str | Path]) -> list[Path]:
    """Files named by a glob pattern, a path, a directory (every file in it) or a list of these,
    sorted and without duplicates. Raises :class:`RecordError` when a pattern matches nothing."""
    items = [glob_or_paths] if isinstance(glob_or_paths, (str, Path)) else list(glob_or_paths)
    out: list[Path] = []
    for item in items:
        text = str(item)
        p = Path(text)
        if p.is_dir():
            matches = sorted(q for q in p.iterdir() if q.is_file())
        elif p.exists():
            matches = [p]
        else:
            matches = sorted(Path(m) for m in _glob.glob(text, recursive=True) if Path(m).is_file())
        if not matches:
            raise RecordError("no record file matches", path=text)
        out.extend(matches)
    seen: set[Path] = set()
    return [p for p in out if not (p in seen or seen.add(p))]
