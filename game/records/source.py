"""Reading a record file's text: gzip or plain, and which of the three formats it holds.

The format comes from the content, never from the file name: ``<`` opens a Tenhou mjlog
XML, a JSON object with ``"log"`` is tenhou.net/6 (one game, or one round per line), a JSON
object with ``"type"`` is an mjai event line.
"""
from __future__ import annotations

import json
import zlib
from pathlib import Path

from game.errors import RecordError

MJLOG = "mjlog"
TENHOU6 = "tenhou6"
MJAI = "mjai"
GZIP_MAGIC = b"\x1f\x8b"


def read_text(path: str | Path) -> str:
    """The decoded text of a record file, gunzipped when its bytes start with gzip's magic.

    Raises :class:`RecordError` for a missing file, a truncated or corrupt gzip stream (with
    the compressed byte offset reached) and text that is not UTF-8.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RecordError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    if raw[:2] == GZIP_MAGIC:
        raw = _gunzip(raw, str(path))
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RecordError("not UTF-8 text", path=str(path), position=f"byte {exc.start}") from None


def _gunzip(raw: bytes, path: str) -> bytes:
    out = bytearray()
    data = raw
    while data:  # concatenated gzip members are legal
        decomp = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            out += decomp.decompress(data)
        except zlib.error as exc:
            raise RecordError(f"corrupt gzip data ({exc})", path=path,
                              position=f"byte {len(raw) - len(data)}") from None
        if not decomp.eof:
            raise RecordError("truncated gzip stream (file ends inside compressed data)",
                              path=path, position=f"byte {len(raw)}")
        data = decomp.unused_data
        if data and data[:2] != GZIP_MAGIC:
            break  # trailing garbage after the last member: ignored as gzip(1) does
    return bytes(out)


def detect_format(text: str, path: str | None = None) -> str:
    """``"mjlog"``, ``"tenhou6"`` or ``"mjai"`` from the first non-blank content."""
    stripped = text.lstrip()
    if not stripped:
        raise RecordError("empty record", path=path, position="line 1")
    if stripped[0] == "<":
        return MJLOG
    if stripped[0] != "{":
        raise RecordError("neither XML nor JSON", path=path, position=_first_line_no(text))
    first = stripped.splitlines()[0]
    try:
        obj = json.loads(first)
    except json.JSONDecodeError:
        obj = None  # a pretty-printed tenhou.net/6 file: the first line alone is no JSON
    if isinstance(obj, dict) and "type" in obj and "log" not in obj:
        return MJAI
    if isinstance(obj, dict) and "log" in obj:
        return TENHOU6
    if obj is None:
        try:
            whole = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"malformed JSON ({exc.msg})", path=path,
                              position=f"line {exc.lineno}") from None
        if isinstance(whole, dict) and "log" in whole:
            return TENHOU6
    raise RecordError("a JSON record must hold mjai events or a tenhou.net/6 game",
                      path=path, position=_first_line_no(text))


def _first_line_no(text: str) -> str:
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            return f"line {n}"
    return "line 1"
