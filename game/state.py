"""The table as one seat knows it, rebuilt from mjai events.

:class:`TableState` follows a game one mjai event at a time (Mortal's dialect, DESIGN.md
"Events") and keeps what the seat can know: its own concealed tiles, every discard, meld and
dora indicator, the scores, riichi sticks and the live wall's size, the copies of each tile
kind it cannot see (``unseen``) and whether its waits are furiten. The abstractions of
Kurita & Hoki (specs/kurita_hoki.md, the state the four solitary MDPs start from) and the
CNN encoders read it.

Tile ids. mjai names tiles by kind (plus ``r`` for a red five), not by physical copy, so
the state numbers the copies itself: the first time the seat sees a tile it gets the lowest
free 136-id of its kind (the red id for a red five) and keeps that id while it moves from
hand to river or meld. Ids are therefore unique within one seat's view of one hand, and the
red fives are exact; they are not the wall's ids of the engine that played the game.

``update`` runs for every event of every self-play game, so it does no deep copies and no
shanten work; the waits that furiten needs are computed lazily, once per change of the
seat's own hand. ``copy()`` makes a snapshot that later updates do not touch.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np
import riichienv

from game.errors import RecordError
from game.records.events import event_problem
from game.tiles import KIND_NAMES, N_KINDS, RED_IDS, RED_KINDS, id_to_mjai

# Tiles of one hand: 136 - 14 (dead wall) - 4 * 13 (deal). Every draw, rinshan included,
# takes one: a kan moves the haitei tile into the dead wall.
LIVE_WALL = 70
WINDS = ("E", "S", "W", "N")

_NAME_KIND: dict[str, int] = {name: k for k, name in enumerate(KIND_NAMES)}
_NAME_KIND.update({KIND_NAMES[k] + "r": k for k in RED_KINDS})
_RED_ID_OF_KIND = {k: RED_IDS[i] for i, k in enumerate(RED_KINDS)}
_PLAIN_IDS = tuple(tuple(i for i in range(4 * k, 4 * k + 4) if i not in RED_IDS)
                   for k in range(N_KINDS))
_ID_NAMES = tuple(id_to_mjai(i) for i in range(136))
_ENGINE_MELD = {
    "chi": riichienv.MeldType.Chi, "pon": riichienv.MeldType.Pon,
    "daiminkan": riichienv.MeldType.Daiminkan, "ankan": riichienv.MeldType.Ankan,
    "kakan": riichienv.MeldType.Kakan,
}


def seat_view(event: dict[str, Any], seat: int) -> dict[str, Any]:
    """``event`` as seat ``seat`` sees it: others' deal and draws shown as ``?``."""
    kind = event.get("type")
    if kind == "tsumo" and event["actor"] != seat and event.get("pai") != "?":
        return {**event, "pai": "?"}
    if kind == "start_kyoku":
        tehais = [t if i == seat else ["?"] * len(t) for i, t in enumerate(event["tehais"])]
        return {**event, "tehais": tehais}
    return event


class Discard(NamedTuple):
    """One tile of a river. ``turn`` counts the discarder's own discards from 0."""
    tile: int
    kind: int
    tsumogiri: bool
    turn: int
    called: bool = False
    riichi: bool = False  # the riichi declaration tile


class Meld(NamedTuple):
    """An open or closed meld; ``called``/``from_seat`` are None for an ankan."""
    type: str
    tiles: list[int]
    called: int | None
    from_seat: int | None


class TableState:
    """What seat ``seat`` knows of the table, updated by :meth:`update` per mjai event.

    Public attributes follow the interface contract (game/state.py in the issue): scores
    and per-seat lists are in absolute seat order; ``hand`` is a uint8[34] count vector of
    the concealed tiles (the drawn tile included) and ``hand_ids`` their 136-ids.
    """

    __slots__ = (
        "seat", "names", "dealer", "round_wind", "kyoku", "honba", "kyotaku", "scores",
        "hand", "hand_ids", "drawn", "discards", "melds", "riichi", "riichi_turn",
        "reach_declared", "dora_indicators", "tiles_left", "unseen", "turns", "last_discard",
        "n_events", "in_kyoku", "to_discard",
        "_seen", "_own_discarded", "_hand_version", "_waits", "_waits_version",
        "_temp_furiten", "_riichi_furiten", "_offer",
    )

    def __init__(self, seat: int):
        if not 0 <= int(seat) < 4:
            raise ValueError(f"seat {seat!r} is outside 0..3")
        self.seat = int(seat)
        self.names: list[str] = ["", "", "", ""]
        self.n_events = 0
        self.scores = [25000] * 4
        self.dealer = 0
        self.round_wind = 0
        self.kyoku = 0
        self.honba = 0
        self.kyotaku = 0
        self._reset_hand()
        self.in_kyoku = False

    # --- snapshots and derived views ----------------------------------------------------

    def copy(self) -> "TableState":
        """A snapshot: later updates of either object do not change the other."""
        new = object.__new__(TableState)
        for name in self.__slots__:
            setattr(new, name, getattr(self, name))
        new.names = list(self.names)
        new.scores = list(self.scores)
        new.hand = self.hand.copy()
        new.hand_ids = list(self.hand_ids)
        new.discards = [list(d) for d in self.discards]
        new.melds = [list(m) for m in self.melds]
        new.riichi = list(self.riichi)
        new.riichi_turn = list(self.riichi_turn)
        new.reach_declared = list(self.reach_declared)
        new.dora_indicators = list(self.dora_indicators)
        new.unseen = self.unseen.copy()
        new.turns = list(self.turns)
        new._seen = bytearray(self._seen)
        new._own_discarded = bytearray(self._own_discarded)
        return new

    @property
    def seat_wind(self) -> int:
        """0 = East (the dealer) .. 3 = North."""
        return (self.seat - self.dealer) % 4

    @property
    def waits(self) -> frozenset[int]:
        """Kinds that complete the seat's hand of 3n+1 tiles (shape only, yaku aside).

        While the seat holds 3n+2 tiles (its own turn) this is the waits of the hand it
        held before the draw or call.
        """
        if self._waits_version != self._hand_version and len(self.hand_ids) % 3 == 1:
            melds = [riichienv.Meld(_ENGINE_MELD[m.type], m.tiles, m.type != "ankan",
                                    -1 if m.from_seat is None else m.from_seat)
                     for m in self.melds[self.seat]]
            self._waits = frozenset(riichienv.HandEvaluator(self.hand_ids, melds).get_waits())
            self._waits_version = self._hand_version
        return self._waits

    @property
    def furiten(self) -> bool:
        """Whether the seat, tenpai, may not win by ron now.

        Three causes: a wait among its own discards (called ones included), a winning tile
        passed since its last discard (temporary), or one passed after its riichi.
        """
        waits = self.waits
        if not waits:
            return False
        if self._temp_furiten or self._riichi_furiten:
            return True
        own = self._own_discarded
        return any(own[k] for k in waits)

    @property
    def tenpai(self) -> bool:
        return bool(self.waits)

    # --- the one entry point -------------------------------------------------------------

    def update(self, event: dict[str, Any]) -> None:
        """Apply one mjai event as this seat sees it (others' draws may show ``?``).

        Raises :class:`RecordError` naming the event's index for an event that cannot
        happen in the state so far (a discard of a tile not in hand, a fifth copy...).
        """
        # Bad input is caught here, field by field; an exception from a handler after this
        # check is a bug of ours and stays a traceback.
        problem = event_problem(event)
        if problem is not None:
            raise self._error(f"malformed event: {problem}")
        handler = _HANDLERS.get(event["type"])
        if handler is None:  # "none": a protocol answer, not a table event
            raise self._error(f"unknown mjai event {event!r}")
        if self._offer >= 0 and event["type"] != "hora":
            self._settle_offer()
        handler(self, event)
        self.n_events += 1

    # --- one method per event type -----------------------------------------------------

    def _on_start_game(self, event: dict[str, Any]) -> None:
        self.names = list(event.get("names") or ["", "", "", ""])
        self.scores = [25000] * 4
        self.kyotaku = 0
        self.in_kyoku = False

    def _on_start_kyoku(self, event: dict[str, Any]) -> None:
        self._reset_hand()
        self.in_kyoku = True
        self.round_wind = WINDS.index(event["bakaze"])
        self.kyoku = event["kyoku"] - 1
        self.dealer = event["oya"]
        self.honba = event["honba"]
        self.kyotaku = event["kyotaku"]
        self.scores = list(event["scores"])
        self.dora_indicators.append(self._reveal(event["dora_marker"]))
        for name in event["tehais"][self.seat]:
            self._add_to_hand(self._reveal(name))

    def _on_tsumo(self, event: dict[str, Any]) -> None:
        actor = self._actor(event)
        if self.to_discard is not None:
            raise self._error(f"seat {actor} draws while seat {self.to_discard} must discard")
        if self.tiles_left <= 0:
            raise self._error("a draw from an empty wall")
        self.tiles_left -= 1
        self.last_discard = None
        self.to_discard = actor
        if actor == self.seat:
            tile = self._reveal(event["pai"])
            self._add_to_hand(tile)
            self.drawn = tile

    def _on_dahai(self, event: dict[str, Any]) -> None:
        actor = self._actor(event)
        if self.to_discard != actor:
            raise self._error(f"seat {actor} discards out of turn")
        name = event["pai"]
        tsumogiri = bool(event.get("tsumogiri", False))
        if actor == self.seat:
            tile = self._take_from_hand(name, prefer=self.drawn if tsumogiri else None,
                                        avoid=None if tsumogiri else self.drawn)
            self._own_discarded[tile >> 2] = 1
            if not self.riichi[actor]:
                self._temp_furiten = False
        else:
            tile = self._reveal(name)
            self._offer = tile >> 2
        declared = self.reach_declared[actor] and not self.riichi[actor]
        self.discards[actor].append(Discard(tile, tile >> 2, tsumogiri, self.turns[actor],
                                            False, declared))
        self.turns[actor] += 1
        self.last_discard = (actor, tile)
        self.drawn = None
        self.to_discard = None

    def _on_chi(self, event: dict[str, Any]) -> None:
        if (event["target"] - event["actor"]) % 4 != 3:
            raise self._error("chi from a seat other than the one on the left")
        self._call(event, 2)

    def _on_pon(self, event: dict[str, Any]) -> None:
        self._call(event, 2)

    def _on_daiminkan(self, event: dict[str, Any]) -> None:
        self._call(event, 3)
        self.to_discard = None  # the rinshan draw comes next

    def _on_kakan(self, event: dict[str, Any]) -> None:
        actor = self._actor(event)
        self._check_own_turn(actor)
        kind = self._kind(event["pai"])
        melds = self.melds[actor]
        for i, meld in enumerate(melds):
            if meld.type == "pon" and meld.tiles[0] >> 2 == kind:
                break
        else:
            raise self._error(f"kakan of {event['pai']} without a pon of it")
        tile = self._take_own_or_reveal(actor, event["pai"])
        melds[i] = Meld("kakan", meld.tiles + [tile], meld.called, meld.from_seat)
        self.last_discard = (actor, tile)  # open to chankan
        if actor != self.seat:
            self._offer = kind
        self.drawn = None
        self.to_discard = None

    def _on_ankan(self, event: dict[str, Any]) -> None:
        actor = self._actor(event)
        self._check_own_turn(actor)
        consumed = event["consumed"]
        if len(consumed) != 4 or len({self._kind(n) for n in consumed}) != 1:
            raise self._error(f"ankan of {consumed!r}")
        tiles = [self._take_own_or_reveal(actor, n) for n in consumed]
        self.melds[actor].append(Meld("ankan", tiles, None, None))
        self.drawn = None
        self.to_discard = None

    def _on_dora(self, event: dict[str, Any]) -> None:
        self.dora_indicators.append(self._reveal(event["dora_marker"]))

    def _on_reach(self, event: dict[str, Any]) -> None:
        actor = self._actor(event)
        self._check_own_turn(actor)
        if self.reach_declared[actor]:
            raise self._error(f"seat {actor} declares riichi twice")
        if any(m.type != "ankan" for m in self.melds[actor]):
            raise self._error(f"seat {actor} declares riichi with an open hand")
        self.reach_declared[actor] = True

    def _on_reach_accepted(self, event: dict[str, Any]) -> None:
        actor = self._actor(event)
        if not self.reach_declared[actor] or self.riichi[actor]:
            raise self._error(f"reach_accepted for seat {actor} without a riichi declaration")
        self.riichi[actor] = True
        self.riichi_turn[actor] = self.turns[actor] - 1
        self.scores[actor] -= 1000
        self.kyotaku += 1

    def _on_hora(self, event: dict[str, Any]) -> None:
        self._actor(event)
        self._add_deltas(event)
        if event.get("deltas") is not None:
            self.kyotaku = 0  # the first winner takes the sticks
        self.to_discard = None

    def _on_ryukyoku(self, event: dict[str, Any]) -> None:
        self._add_deltas(event)
        self.to_discard = None

    def _on_end_kyoku(self, event: dict[str, Any]) -> None:
        self.in_kyoku = False

    def _on_end_game(self, event: dict[str, Any]) -> None:
        """Sticks left on the table go to the first place (Tenhou; ties to the lower seat)."""
        self.in_kyoku = False
        if event.get("scores") is not None:
            self.scores = list(event["scores"])
        elif self.kyotaku:
            top = max(range(4), key=lambda s: (self.scores[s], -s))
            self.scores[top] += 1000 * self.kyotaku
        self.kyotaku = 0

    # --- helpers ---------------------------------------------------------------------

    def _reset_hand(self) -> None:
        self.hand = np.zeros(N_KINDS, dtype=np.uint8)
        self.hand_ids: list[int] = []
        self.drawn: int | None = None
        self.discards: list[list[Discard]] = [[], [], [], []]
        self.melds: list[list[Meld]] = [[], [], [], []]
        self.riichi = [False] * 4
        self.riichi_turn: list[int | None] = [None] * 4
        self.reach_declared = [False] * 4
        self.dora_indicators: list[int] = []
        self.tiles_left = LIVE_WALL
        self.unseen = np.full(N_KINDS, 4, dtype=np.uint8)
        self.turns = [0] * 4
        self.last_discard: tuple[int, int] | None = None
        self.to_discard: int | None = None
        self._seen = bytearray(136)
        self._own_discarded = bytearray(N_KINDS)
        self._hand_version = 0
        self._waits: frozenset[int] = frozenset()
        self._waits_version = -1
        self._temp_furiten = False
        self._riichi_furiten = False
        self._offer = -1

    def _error(self, message: str) -> RecordError:
        return RecordError(f"seat {self.seat}: {message}", position=f"event {self.n_events}")

    def _actor(self, event: dict[str, Any]) -> int:
        actor = event["actor"]  # a seat 0..3: update checked the fields
        if not self.in_kyoku:
            raise self._error(f"{event['type']} outside a hand")
        return actor

    def _check_own_turn(self, actor: int) -> None:
        if self.to_discard != actor:
            raise self._error(f"seat {actor} acts out of turn")

    def _kind(self, name: str) -> int:
        kind = _NAME_KIND.get(name)
        if kind is None:
            raise self._error(f"unknown tile {name!r}")
        return kind

    def _reveal(self, name: str) -> int:
        """A fresh id for a tile the seat sees for the first time; counts it as seen."""
        kind = self._kind(name)
        seen = self._seen
        if name[-1] == "r":
            tile = _RED_ID_OF_KIND[kind]
            if seen[tile]:
                raise self._error(f"a second red {name}")
        else:
            for tile in _PLAIN_IDS[kind]:
                if not seen[tile]:
                    break
            else:
                # Three plain fives at most: the rules have red fives (DESIGN.md).
                raise self._error(f"a fifth {name}" if kind not in _RED_ID_OF_KIND
                                  else f"a fourth plain {name} (a game without red fives?)")
        seen[tile] = 1
        self.unseen[kind] -= 1
        return tile

    def _add_to_hand(self, tile: int) -> None:
        self.hand_ids.append(tile)
        self.hand[tile >> 2] += 1
        self._hand_version += 1

    def _take_from_hand(self, name: str, *, prefer: int | None = None,
                        avoid: int | None = None) -> int:
        """Remove a tile named ``name`` from the seat's hand; returns its id.

        ``prefer`` (the drawn tile of a tsumogiri) is taken when it has that name; else a
        copy other than ``avoid`` (the drawn tile of a discard from the hand) if one exists.
        """
        ids = self.hand_ids
        candidates = [t for t in ids if _ID_NAMES[t] == name]
        if not candidates:
            self._kind(name)
            raise self._error(f"seat {self.seat} has no {name} in hand "
                              f"({' '.join(sorted(_ID_NAMES[t] for t in ids))})")
        if prefer in candidates:
            match = prefer
        else:
            others = [t for t in candidates if t != avoid]
            match = others[0] if others else candidates[0]
        ids.remove(match)
        self.hand[match >> 2] -= 1
        self._hand_version += 1
        return match

    def _take_own_or_reveal(self, actor: int, name: str) -> int:
        return self._take_from_hand(name) if actor == self.seat else self._reveal(name)

    def _call(self, event: dict[str, Any], n_consumed: int) -> None:
        actor = self._actor(event)
        target = event["target"]
        if self.last_discard is None or self.last_discard[0] != target or target == actor:
            raise self._error(f"seat {actor} calls a tile seat {target} did not just discard")
        called = self.last_discard[1]
        if self._kind(event["pai"]) != called >> 2:
            raise self._error(f"{event['type']} of {event['pai']} but the discard was "
                              f"{_ID_NAMES[called]}")
        consumed = event["consumed"]
        if len(consumed) != n_consumed:
            raise self._error(f"{event['type']} consumes {len(consumed)} tiles")
        tiles = [self._take_own_or_reveal(actor, n) for n in consumed]
        if not _is_set(sorted([called >> 2] + [t >> 2 for t in tiles]), event["type"]):
            raise self._error(f"{event['type']} of {event['pai']} with {consumed!r} is no set")
        river = self.discards[target]
        river[-1] = river[-1]._replace(called=True)
        self.melds[actor].append(Meld(event["type"], tiles + [called], called, target))
        self.last_discard = None
        self.drawn = None
        self.to_discard = actor

    def _add_deltas(self, event: dict[str, Any]) -> None:
        deltas = event.get("deltas")
        if deltas is not None:
            for i in range(4):
                self.scores[i] += deltas[i]

    def _settle_offer(self) -> None:
        """A tile of another seat was passed: furiten if it was one of our waits."""
        kind, self._offer = self._offer, -1
        if kind in self.waits:
            self._temp_furiten = True
            if self.riichi[self.seat]:
                self._riichi_furiten = True


def _is_set(kinds: list[int], kind_of_call: str) -> bool:
    if kind_of_call == "chi":
        a, b, c = kinds
        return c < 27 and a // 9 == c // 9 and b == a + 1 and c == a + 2
    return kinds[0] == kinds[-1]


_HANDLERS: dict[str, Callable[[TableState, dict[str, Any]], None]] = {
    "start_game": TableState._on_start_game,
    "start_kyoku": TableState._on_start_kyoku,
    "tsumo": TableState._on_tsumo,
    "dahai": TableState._on_dahai,
    "chi": TableState._on_chi,
    "pon": TableState._on_pon,
    "daiminkan": TableState._on_daiminkan,
    "kakan": TableState._on_kakan,
    "ankan": TableState._on_ankan,
    "dora": TableState._on_dora,
    "reach": TableState._on_reach,
    "reach_accepted": TableState._on_reach_accepted,
    "hora": TableState._on_hora,
    "ryukyoku": TableState._on_ryukyoku,
    "end_kyoku": TableState._on_end_kyoku,
    "end_game": TableState._on_end_game,
}
