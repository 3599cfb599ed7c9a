"""mjai JSONL records (one event per line, plain or gzip): reading, checking, writing."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from game import tiles
from game.errors import RecordError, TileError

_TILE_FIELDS = ("pai", "dora_marker")
_TILE_LISTS = ("consumed", "ura_markers")
_KNOWN = {"start_game", "start_kyoku", "tsumo", "dahai", "chi", "pon", "daiminkan", "kakan",
          "ankan", "dora", "reach", "reach_accepted", "hora", "ryukyoku", "end_kyoku",
          "end_game", "none"}


def read_mjai(text: str, path: str | None = None) -> list[dict]:
    """Events of an mjai JSONL text; every tile name is checked (``?`` allowed for hidden).

    Raises :class:`RecordError` naming the line for malformed JSON, an event without a known
    ``type``, an unknown tile, and a record that stops before ``end_game`` (truncated).
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
        if not isinstance(event, dict) or event.get("type") not in _KNOWN:
            raise RecordError("not an mjai event (missing or unknown 'type')", path=path,
                              position=f"line {n}")
        try:
            _check_tiles(event)
        except TileError as exc:
            raise RecordError(str(exc), path=path, position=f"line {n}") from None
        events.append(event)
    if not events or events[-1]["type"] != "end_game":
        raise RecordError("record stops before end_game (truncated?)", path=path,
                          position=f"line {last_line + 1}")
    return events


def _check_tiles(event: dict) -> None:
    for key in _TILE_FIELDS:
        if key in event:
            _tile(event[key])
    for key in _TILE_LISTS:
        for name in event.get(key) or ():
            _tile(name)
    for hand in event.get("tehais") or ():
        for name in hand:
            _tile(name)


def _tile(name) -> None:
    if name != tiles.UNKNOWN:
        tiles.mjai_to_kind(name)


def write_mjai(events: list[dict], path: str | Path) -> None:
    """Write events as mjai JSONL, gzip-compressed when the name ends in ``.gz``."""
    path = Path(path)
    text = "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)
    data = text.encode("utf-8")
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)
