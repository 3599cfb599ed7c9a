"""Small builders for the canonical mjai event stream shared by the record readers.

The canonical stream is Mortal's mjai dialect (``specs/anchors.md`` section 4) with a few
fields a record may add: ``tsumogiri`` on every ``dahai``; ``deltas`` and ``scores`` on
``reach_accepted``; ``pai``, ``deltas``, ``ura_markers``, ``scores`` and, where the record
says them, ``han``, ``fu``, ``yaku`` ([[name, han], ...]) and ``pao`` on ``hora``;
``deltas`` and ``reason`` (plus ``actor`` for nine terminals) on ``ryukyoku``; ``scores``
(the record's final scores) on ``end_game`` where the record states them.

Kan dora order follows Tenhou's mjlog: ankan -> dora -> rinshan tsumo; daiminkan/kakan ->
rinshan tsumo -> dora -> dahai (the dora is not shown when the rinshan draw wins or the
kakan is robbed); a pending open-kan dora is shown at once when a further kan is declared.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from game import tiles
from game.errors import RecordError

WINDS = ("E", "S", "W", "N")

# Tenhou's abortive and special draws, by mjlog type / tenhou.net/6 title.
RYUKYOKU_REASONS = {
    None: "exhaustive", "yao9": "kyushukyuhai", "reach4": "suucha_riichi",
    "ron3": "sanchaho", "kaze4": "suufon_renda", "kan4": "suukaikan",
    "nm": "nagashi_mangan",
}


def name_sort_key(name: str) -> tuple[int, int]:
    return tiles.mjai_to_kind(name), int(name.endswith("r"))


def sorted_names(names: Iterable[str]) -> list[str]:
    """Tile names in the canonical order: by kind, a red five after its plain copies."""
    return sorted(names, key=name_sort_key)


def start_kyoku(*, round_no: int, honba: int, kyotaku: int, oya: int, scores: list[int],
                dora_marker: str, tehais: list[list[str]]) -> dict:
    """``start_kyoku``: ``round_no`` counts hands from East 1 = 0 (Tenhou's INIT seed)."""
    return {"type": "start_kyoku", "bakaze": WINDS[(round_no // 4) % 4],
            "dora_marker": dora_marker, "kyoku": round_no % 4 + 1, "honba": honba,
            "kyotaku": kyotaku, "oya": oya, "scores": list(scores),
            "tehais": [sorted_names(t) for t in tehais]}


def hora(*, actor: int, target: int, pai: str, deltas: list[int], ura_markers: list[str],
         scores: list[int], han: int | None = None, fu: int | None = None,
         yaku: list[list] | None = None, pao: int | None = None) -> dict:
    event = {"type": "hora", "actor": actor, "target": target, "pai": pai,
             "deltas": list(deltas), "ura_markers": list(ura_markers), "scores": list(scores)}
    if han is not None:
        event["han"] = han
    if fu is not None:
        event["fu"] = fu
    if yaku is not None:
        event["yaku"] = yaku
    if pao is not None:
        event["pao"] = pao
    return event


def ryukyoku(*, reason: str, deltas: list[int], actor: int | None = None) -> dict:
    event: dict = {"type": "ryukyoku", "reason": reason, "deltas": list(deltas)}
    if actor is not None:
        event["actor"] = actor
    return event


# --- the fields of each event type -------------------------------------------------------

_TILE_NAMES = frozenset(tiles.KIND_NAMES) | {f"5{s}r" for s in tiles.SUITS} | {tiles.UNKNOWN}
_MISSING = object()
# Far beyond any game (a Tenhou game moves ~10^5 points), well inside the engine's 32-bit
# scores; honba and riichi sticks are bytes in the engine.
_POINTS_LIMIT = 10_000_000


def _int_in(lo: int, hi: int) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if type(value) is not int or not lo <= value <= hi:
            return f"{value!r} is not an integer in {lo}..{hi}"
        return None
    return check


_seat = _int_in(0, 3)
_count = _int_in(0, 255)


def _tile(value: Any) -> str | None:
    # ``type(...) is str`` first: an unhashable value must not reach the set lookup.
    if type(value) is not str or value not in _TILE_NAMES:
        return f"{value!r} is an unknown tile"
    return None


def _tile_list(n: int | None) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if type(value) is not list or (n is not None and len(value) != n):
            return f"{value!r} is not a list of {n if n is not None else 'any number of'} tiles"
        for name in value:
            if _tile(name):
                return f"holds {name!r}, an unknown tile"
        return None
    return check


def _points(value: Any) -> str | None:
    if (type(value) is not list or len(value) != 4
            or any(type(p) is not int or abs(p) >= _POINTS_LIMIT for p in value)):
        return f"{value!r} is not four integer point counts"
    return None


def _wind(value: Any) -> str | None:
    return None if type(value) is str and value in WINDS else f"{value!r} is not one of E S W N"


_hand = _tile_list(13)


def _tehais(value: Any) -> str | None:
    if type(value) is not list:
        return f"{short(value)} is not a list of four starting hands"
    if len(value) != 4:
        return f"holds {len(value)} starting hands, not 4"
    for seat, hand in enumerate(value):
        problem = _hand(hand)
        if problem:
            return f"of seat {seat}: {problem}"
    return None


def _flag(value: Any) -> str | None:
    return None if type(value) is bool else f"{value!r} is not true or false"


def _text(value: Any) -> str | None:
    return None if type(value) is str else f"{value!r} is not a string"


def _id(value: Any) -> str | None:
    return None if type(value) in (int, str) else f"{value!r} is neither an integer nor a string"


def _names(value: Any) -> str | None:
    if type(value) is not list or len(value) != 4 or not all(type(n) is str for n in value):
        return f"{short(value)} is not four player names"
    return None


def short(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


# type -> (field, check, required). Optional fields may also be null. Fields not listed
# (``meta``, ``han``, ``yaku``, ...) are free: no reader or consumer relies on them.
_FIELDS: dict[str, tuple[tuple[str, Callable[[Any], str | None], bool], ...]] = {
    "start_game": (("names", _names, False), ("id", _id, False)),
    "start_kyoku": (("bakaze", _wind, True), ("dora_marker", _tile, True),
                    ("kyoku", _int_in(1, 4), True), ("honba", _count, True),
                    ("kyotaku", _count, True), ("oya", _seat, True), ("scores", _points, True),
                    ("tehais", _tehais, True)),
    "tsumo": (("actor", _seat, True), ("pai", _tile, True)),
    "dahai": (("actor", _seat, True), ("pai", _tile, True), ("tsumogiri", _flag, False)),
    "chi": (("actor", _seat, True), ("target", _seat, True), ("pai", _tile, True),
            ("consumed", _tile_list(2), True)),
    "pon": (("actor", _seat, True), ("target", _seat, True), ("pai", _tile, True),
            ("consumed", _tile_list(2), True)),
    "daiminkan": (("actor", _seat, True), ("target", _seat, True), ("pai", _tile, True),
                  ("consumed", _tile_list(3), True)),
    "kakan": (("actor", _seat, True), ("pai", _tile, True), ("consumed", _tile_list(3), False)),
    "ankan": (("actor", _seat, True), ("consumed", _tile_list(4), True)),
    "dora": (("dora_marker", _tile, True),),
    "reach": (("actor", _seat, True),),
    "reach_accepted": (("actor", _seat, True), ("deltas", _points, False),
                       ("scores", _points, False)),
    "hora": (("actor", _seat, True), ("target", _seat, False), ("pai", _tile, False),
             ("deltas", _points, False), ("ura_markers", _tile_list(None), False),
             ("scores", _points, False)),
    "ryukyoku": (("actor", _seat, False), ("deltas", _points, False), ("reason", _text, False),
                 ("scores", _points, False)),
    "end_kyoku": (),
    "end_game": (("scores", _points, False),),
    "none": (),
}
EVENT_TYPES = frozenset(_FIELDS)


def event_problem(event: Any) -> str | None:
    """What makes ``event`` no event of the canonical dialect, or None when its fields are
    well formed: a known ``type``, every required field, seats in 0..3, tile names (``?``
    for a hidden tile), four 13-tile starting hands, four integer scores or deltas.

    Callers raise :class:`~game.errors.RecordError` with the message and their position;
    whether the event can happen where it stands (turn order, tiles in hand) is the table
    state's and the engine's question.
    """
    if type(event) is not dict:
        return f"{short(event)} is not a JSON object"
    kind = event.get("type")
    fields = _FIELDS.get(kind) if type(kind) is str else None
    if fields is None:
        return f"unknown mjai event type {short(kind)}"
    for key, check, required in fields:
        value = event.get(key, _MISSING)
        if value is _MISSING or value is None:
            if required:
                return f"{kind} without {key!r}"
            continue
        problem = check(value)
        if problem:
            return f"{kind} {key} {problem}"
    return None


def check_made(events: Iterable[dict], path: str | None, position: str) -> None:
    """Raise :class:`RecordError` at ``position`` of ``path`` for the first of ``events`` (those
    a reader made of one tag or round) that :func:`event_problem` rejects."""
    for event in events:
        problem = event_problem(event)
        if problem is not None:
            raise RecordError(f"makes a malformed event: {problem}", path=path, position=position)
