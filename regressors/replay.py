"""Full-information replay of an mjai record, for labelling the estimators' datasets.

The MDP player sees the table through one seat's ``game.state.TableState``; to label a
record we also need what the seat cannot see (every concealed hand, hence who was tenpai and
on what). :class:`TableReplay` follows every mjai event of a record with all four hands and
hands out :class:`SeatView` objects: one seat's knowledge under the same attribute names as
the TableState contract (``discards``, ``melds``, ``riichi``, ``unseen``, ``tiles_left``, ...),
so the feature functions of :mod:`regressors.features` run unchanged on either.

Tiles are kept as kinds; an id is ``4 * kind`` (+1 for a plain five) so ``id // 4`` is the
kind and the red ids of game/tiles.py stay red.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from game.errors import RecordError
from game.tiles import mjai_to_kind

LIVE_WALL = 70  # 136 tiles - 14 dead wall - 52 dealt


@dataclass
class Discard:
    tile: int
    kind: int
    tsumogiri: bool
    turn: int
    called: bool = False
    riichi: bool = False


@dataclass
class Meld:
    type: str
    tiles: list[int]
    called: int | None
    from_seat: int | None


def _tid(name: str) -> int:
    kind = mjai_to_kind(name)
    return 4 * kind + (1 if kind in (4, 13, 22) and not name.endswith("r") else 0)


@dataclass
class SeatView:
    """What ``seat`` knows (TableState contract names); shares lists with the replay."""

    seat: int
    dealer: int
    round_wind: int
    kyoku: int
    honba: int
    kyotaku: int
    scores: list[int]
    hand: np.ndarray
    discards: list[list[Discard]]
    melds: list[list[Meld]]
    riichi: list[bool]
    riichi_turn: list[int | None]
    dora_indicators: list[int]
    tiles_left: int
    unseen: np.ndarray
    turns: list[int]


@dataclass
class TableReplay:
    """Every seat's hand and the public table, event by event."""

    scores: list[int] = field(default_factory=lambda: [25000] * 4)
    path: str | None = None

    def __post_init__(self) -> None:
        self.in_kyoku = False
        self.index = -1

    # --- errors -------------------------------------------------------------------------
    def _fail(self, msg: str) -> None:
        raise RecordError(msg, path=self.path, position=f"event {self.index}")

    # --- events ---------------------------------------------------------------------------
    def update(self, event: dict, index: int | None = None) -> None:
        self.index = self.index + 1 if index is None else index
        kind = event.get("type")
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            self._fail(f"unknown event type {kind!r}")
        try:
            handler(event)
        except (KeyError, TypeError, ValueError) as exc:  # TileError is a ValueError
            self._fail(f"malformed {kind} event: {exc}")

    def _on_start_game(self, e: dict) -> None:
        self.in_kyoku = False

    def _on_start_kyoku(self, e: dict) -> None:
        self.round_wind = "ESWN".index(e["bakaze"])
        self.kyoku = int(e["kyoku"]) - 1
        self.dealer = int(e["oya"])
        self.honba = int(e["honba"])
        self.kyotaku = int(e["kyotaku"])
        self.scores = [int(s) for s in e["scores"]]
        self.hands = np.zeros((4, 34), dtype=np.int16)
        self.known = [True] * 4
        for s, tiles in enumerate(e["tehais"]):
            if len(tiles) != 13:
                self._fail(f"seat {s} is dealt {len(tiles)} tiles")
            for name in tiles:
                if name == "?":
                    self.known[s] = False
                else:
                    self.hands[s, mjai_to_kind(name)] += 1
        self.discards: list[list[Discard]] = [[] for _ in range(4)]
        self.melds: list[list[Meld]] = [[] for _ in range(4)]
        self.riichi = [False] * 4
        self.riichi_turn: list[int | None] = [None] * 4
        self.declared = [False] * 4
        self.dora_indicators = [_tid(e["dora_marker"])]
        self.public = np.zeros(34, dtype=np.int16)
        self.public[mjai_to_kind(e["dora_marker"])] += 1
        self.draws = 0
        self.turns = [0] * 4
        self.last_discard: tuple[int, int] | None = None
        self.in_kyoku = True

    def _take(self, seat: int, name: str) -> int:
        k = mjai_to_kind(name)
        if self.known[seat]:
            if self.hands[seat, k] <= 0:
                self._fail(f"seat {seat} has no {name} to use")
            self.hands[seat, k] -= 1
        return k

    def _on_tsumo(self, e: dict) -> None:
        a = int(e["actor"])
        self.draws += 1
        if e["pai"] != "?":
            self.hands[a, mjai_to_kind(e["pai"])] += 1
        else:
            self.known[a] = False

    def _on_dahai(self, e: dict) -> None:
        a = int(e["actor"])
        k = self._take(a, e["pai"])
        self.discards[a].append(Discard(_tid(e["pai"]), k, bool(e.get("tsumogiri", False)),
                                        self.turns[a], riichi=self.declared[a] and not self.riichi[a]))
        self.turns[a] += 1
        self.public[k] += 1
        self.last_discard = (a, _tid(e["pai"]))

    def _call(self, e: dict) -> None:
        a, target = int(e["actor"]), int(e["target"])
        if not self.discards[target]:
            self._fail(f"seat {a} calls a discard that seat {target} never made")
        self.discards[target][-1].called = True
        tiles = [_tid(n) for n in e["consumed"]]
        for n in e["consumed"]:
            self.public[self._take(a, n)] += 1
        self.melds[a].append(Meld(e["type"], tiles + [_tid(e["pai"])], _tid(e["pai"]), target))

    _on_chi = _call
    _on_pon = _call
    _on_daiminkan = _call

    def _on_ankan(self, e: dict) -> None:
        a = int(e["actor"])
        for n in e["consumed"]:
            self.public[self._take(a, n)] += 1
        self.melds[a].append(Meld("ankan", [_tid(n) for n in e["consumed"]], None, None))

    def _on_kakan(self, e: dict) -> None:
        a = int(e["actor"])
        k = self._take(a, e["pai"])
        self.public[k] += 1
        for m in self.melds[a]:
            if m.type == "pon" and m.tiles[0] // 4 == k:
                m.type = "kakan"
                m.tiles.append(_tid(e["pai"]))
                return
        self._fail(f"seat {a} adds {e['pai']} to no pon")

    def _on_dora(self, e: dict) -> None:
        self.dora_indicators.append(_tid(e["dora_marker"]))
        self.public[mjai_to_kind(e["dora_marker"])] += 1

    def _on_reach(self, e: dict) -> None:
        self.declared[int(e["actor"])] = True

    def _on_reach_accepted(self, e: dict) -> None:
        a = int(e["actor"])
        self.riichi[a] = True
        self.riichi_turn[a] = self.turns[a] - 1
        if self.discards[a]:
            self.discards[a][-1].riichi = True
        if "scores" in e or "deltas" in e:
            self._apply_deltas(e)
        else:
            self.scores[a] -= 1000
        self.kyotaku += 1

    def _apply_deltas(self, e: dict) -> None:
        if "deltas" in e:
            self.scores = [s + int(d) for s, d in zip(self.scores, e["deltas"])]
        if "scores" in e:
            self.scores = [int(s) for s in e["scores"]]

    def _on_hora(self, e: dict) -> None:
        self._apply_deltas(e)
        self.kyotaku = 0

    def _on_ryukyoku(self, e: dict) -> None:
        self._apply_deltas(e)

    def _on_end_kyoku(self, e: dict) -> None:
        self.in_kyoku = False

    def _on_end_game(self, e: dict) -> None:
        if "scores" in e:
            self.scores = [int(s) for s in e["scores"]]

    # --- queries --------------------------------------------------------------------------
    @property
    def tiles_left(self) -> int:
        return LIVE_WALL - self.draws

    def concealed(self, seat: int) -> np.ndarray:
        return self.hands[seat]

    def view(self, seat: int) -> SeatView:
        """One seat's knowledge now (lists are shared, not copied: read it before updating)."""
        unseen = np.clip(4 - self.public - self.hands[seat], 0, 4).astype(np.uint8)
        return SeatView(seat, self.dealer, self.round_wind, self.kyoku, self.honba, self.kyotaku,
                        list(self.scores), self.hands[seat].astype(np.uint8), self.discards,
                        self.melds, self.riichi, self.riichi_turn, self.dora_indicators,
                        self.tiles_left, unseen, self.turns)
