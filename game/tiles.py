"""Tiles: the one place that converts between the project's tile notations.

Three notations are in use (DESIGN.md, "Conventions"):

* **kind** 0..33: 0-8 = 1m-9m, 9-17 = 1p-9p, 18-26 = 1s-9s, 27-33 = E S W N P F C.
  Kernels count hands as 34-long ``uint8`` vectors over kinds.
* **id** 0..135 as Tenhou numbers the physical tiles: ``kind = id // 4``; the red fives
  are ids 16 (5m), 52 (5p) and 88 (5s).
* **mjai name**: ``1m``..``9m``, ``5mr`` for a red five, honors ``E S W N P F C``;
  ``?`` stands for a tile the seat cannot see.

Hand strings for people and tests follow the usual short form: digits then a suit letter,
``123m456p789s11z``, with ``0`` for a red five and ``z`` for honors (1z-7z = E S W N P F C).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from game.errors import TileError

N_KINDS = 34
N_IDS = 136
RED_IDS = (16, 52, 88)
RED_KINDS = (4, 13, 22)
HONOR_NAMES = ("E", "S", "W", "N", "P", "F", "C")
SUITS = "mps"
UNKNOWN = "?"

# Terminal and honor kinds: the yaochuu tiles of kokushi, chanta and tanyao.
TERMINALS_AND_HONORS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def _kind_names() -> tuple[str, ...]:
    suited = tuple(f"{n}{s}" for s in SUITS for n in range(1, 10))
    return suited + HONOR_NAMES


KIND_NAMES = _kind_names()
_NAME_TO_KIND = {name: k for k, name in enumerate(KIND_NAMES)}
_NAME_TO_KIND.update({f"5{s}r": RED_KINDS[i] for i, s in enumerate(SUITS)})


def check_kind(kind: int) -> int:
    if not 0 <= int(kind) < N_KINDS:
        raise TileError(f"tile kind {kind!r} is outside 0..33")
    return int(kind)


def check_id(tile_id: int) -> int:
    if not 0 <= int(tile_id) < N_IDS:
        raise TileError(f"tile id {tile_id!r} is outside 0..135")
    return int(tile_id)


def kind_of(tile_id: int) -> int:
    """Kind 0..33 of a 136-id."""
    return check_id(tile_id) // 4


def is_red(tile_id: int) -> bool:
    return check_id(tile_id) in RED_IDS


def is_honor(kind: int) -> bool:
    return check_kind(kind) >= 27


def suit_of(kind: int) -> int:
    """0 = man, 1 = pin, 2 = sou, 3 = honors."""
    return check_kind(kind) // 9


def number_of(kind: int) -> int:
    """1..9 for suited kinds, 1..7 for honors (E=1 .. C=7)."""
    kind = check_kind(kind)
    return kind % 9 + 1 if kind < 27 else kind - 26


# --- mjai names -------------------------------------------------------------------------

def mjai_to_kind(name: str) -> int:
    """Kind of an mjai tile name (``5mr`` is kind 4)."""
    try:
        return _NAME_TO_KIND[name]
    except (KeyError, TypeError):
        raise TileError(f"unknown mjai tile {name!r}") from None


def kind_to_mjai(kind: int) -> str:
    return KIND_NAMES[check_kind(kind)]


def id_to_mjai(tile_id: int) -> str:
    """mjai name of a 136-id; red fives get the ``r`` suffix."""
    name = KIND_NAMES[kind_of(tile_id)]
    return name + "r" if tile_id in RED_IDS else name


def mjai_is_red(name: str) -> bool:
    mjai_to_kind(name)
    return name.endswith("r")


def mjai_to_id(name: str, taken: Iterable[int] = ()) -> int:
    """A 136-id for an mjai name: the red id for ``5mr``, else the lowest free plain copy.

    ``taken`` holds ids already in use (so four ``1m`` give four distinct ids).
    """
    kind = mjai_to_kind(name)
    if name.endswith("r"):
        return RED_IDS[RED_KINDS.index(kind)]
    used = set(taken)
    for tile_id in range(4 * kind, 4 * kind + 4):
        if tile_id not in RED_IDS and tile_id not in used:
            return tile_id
    raise TileError(f"all plain copies of {name!r} are already taken")


# --- hand strings ----------------------------------------------------------------------

def parse_hand(text: str) -> list[int]:
    """136-ids of a hand string such as ``123m406p789s11z`` (``0`` = red five).

    Copies are numbered from the lowest free plain id, so the result is deterministic.
    """
    ids: list[int] = []
    digits: list[str] = []
    for pos, ch in enumerate(text.replace(" ", "")):
        if ch.isdigit():
            digits.append(ch)
            continue
        if ch not in "mpsz" or not digits:
            raise TileError(f"malformed hand string {text!r} at character {pos}")
        for d in digits:
            ids.append(_string_tile_to_id(int(d), ch, ids, text))
        digits = []
    if digits:
        raise TileError(f"malformed hand string {text!r}: digits without a suit letter")
    return ids


def _string_tile_to_id(number: int, suit: str, taken: list[int], text: str) -> int:
    if suit == "z":
        if not 1 <= number <= 7:
            raise TileError(f"no honor {number}z in {text!r}")
        return mjai_to_id(HONOR_NAMES[number - 1], taken)
    if number == 0:
        return mjai_to_id(f"5{suit}r", taken)
    return mjai_to_id(f"{number}{suit}", taken)


def hand_to_string(tiles: Iterable[int], *, ids: bool = True) -> str:
    """Short string of a hand given as 136-ids (``ids=True``) or as kinds."""
    groups: dict[str, list[str]] = {s: [] for s in "mpsz"}
    for t in sorted(tiles, key=lambda t: (t // 4 if ids else t, t)):
        kind = kind_of(t) if ids else check_kind(t)
        letter = "mpsz"[kind // 9]
        digit = "0" if ids and t in RED_IDS else str(number_of(kind))
        groups[letter].append(digit)
    return "".join("".join(d) + s for s, d in groups.items() if d)


def counts_to_string(counts: Sequence[int]) -> str:
    """Short string of a 34-count vector."""
    return hand_to_string([k for k in range(N_KINDS) for _ in range(int(counts[k]))], ids=False)


# --- count vectors ---------------------------------------------------------------------

def to_counts(tiles: Iterable[int], *, ids: bool = True) -> np.ndarray:
    """34-count ``uint8`` vector of tiles given as 136-ids or as kinds."""
    counts = np.zeros(N_KINDS, dtype=np.uint8)
    for t in tiles:
        counts[kind_of(t) if ids else check_kind(t)] += 1
    if counts.max(initial=0) > 4:
        raise TileError("more than four copies of a tile kind")
    return counts


def hand_counts(text: str) -> np.ndarray:
    """34-count vector of a hand string: ``hand_counts('123m11z')``."""
    return to_counts(parse_hand(text))


def dora_from_indicator(kind: int) -> int:
    """The dora kind that an indicator of ``kind`` points to (9m -> 1m, N -> E, C -> P)."""
    kind = check_kind(kind)
    if kind < 27:
        return kind - kind % 9 + (kind % 9 + 1) % 9
    if kind < 31:
        return 27 + (kind - 27 + 1) % 4
    return 31 + (kind - 31 + 1) % 3


# --- tenhou.net/6 tile codes -----------------------------------------------------------

def tenhou6_to_mjai(code: int) -> str:
    """mjai name of a tenhou.net/6 tile code: 11-19 m, 21-29 p, 31-39 s, 41-47 E S W N P F C,
    51/52/53 the red 5m/5p/5s (60, the tsumogiri marker, and 0 are not tiles)."""
    if isinstance(code, bool) or not isinstance(code, int):
        raise TileError(f"tenhou.net/6 tile code {code!r} is not an integer")
    if code in (51, 52, 53):
        return f"5{SUITS[code - 51]}r"
    suit, number = divmod(code, 10)
    if 1 <= suit <= 3 and 1 <= number <= 9:
        return f"{number}{SUITS[suit - 1]}"
    if suit == 4 and 1 <= number <= 7:
        return HONOR_NAMES[number - 1]
    raise TileError(f"unknown tenhou.net/6 tile code {code!r}")
