"""Full-information replay of an mjai record, for labelling the estimators' datasets.

The player sees the table through one seat's :class:`game.state.TableState`; labelling a
record also needs what that seat cannot see: every concealed hand, hence who was tenpai and
on what. :class:`FullReplay` is four ``TableState`` objects, seat ``s`` fed
``game.state.seat_view(event, s)``. Seat ``i``'s state is seat ``i``'s view of the table
(the feature side, exactly what the player gets at play time); each seat's own state gives
the labels: its concealed tiles, its waits and whether it is furiten. The layer adds only
what needs all four hands at once.

Records that hide a seat's tiles (``?`` in its deal or its own draw, e.g. a log written from
one player's seat) are followed for the seats they show; that seat is not ``known`` until
the next hand, and rows needing every hand are skipped by the datasets.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from game.errors import RecordError
from game.state import TableState, seat_view
from regressors.features import n_takes
from search.waits import wait_mask

# Fields every seat's state holds alike (the public table), read from any followed seat.
_PUBLIC = frozenset({
    "scores", "dealer", "round_wind", "kyoku", "honba", "kyotaku", "discards", "melds",
    "riichi", "riichi_turn", "dora_indicators", "tiles_left", "turns", "last_discard",
    "in_kyoku", "names",
})


class FullReplay:
    """Every seat's :class:`TableState` of one record, updated together, event by event.

    The public fields of the table (``scores``, ``discards``, ``melds``, ``riichi``,
    ``tiles_left``, ``in_kyoku``, ... as listed in ``_PUBLIC``) are read through to the
    state of a followed seat.
    """

    def __init__(self, path: str | None = None):
        self.path = path
        self.states = [TableState(s) for s in range(4)]
        self.known = [True] * 4  # whether the record shows seat s's concealed tiles
        self.index = -1

    def __getattr__(self, name: str) -> Any:
        if name in _PUBLIC:
            return getattr(self.table, name)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    # --- events -------------------------------------------------------------------------

    def update(self, event: dict[str, Any], index: int | None = None) -> None:
        """Apply one mjai event of the record to every followed seat.

        Raises :class:`RecordError` naming the record and the event's index when a seat's
        state rejects the event (a tile not in hand, a call of no discard, ...).
        """
        self.index = self.index + 1 if index is None else index
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == "start_kyoku":
            self._start_hand(event)
        elif kind == "tsumo" and event.get("pai") == "?":
            self._hide(event.get("actor"))
        for s, state in enumerate(self.states):
            if self.known[s]:
                try:
                    state.update(seat_view(event, s))
                except RecordError as exc:
                    raise self._error(_reason(exc)) from None

    def _start_hand(self, event: dict[str, Any]) -> None:
        tehais = event.get("tehais")
        if not isinstance(tehais, list) or len(tehais) != 4:
            raise self._error(f"start_kyoku without four deals: {event!r}")
        self.known = [isinstance(t, list) and "?" not in t for t in tehais]
        if not any(self.known):
            raise self._error("the record hides every seat's deal; the estimators need a "
                              "record that shows at least one seat's tiles")

    def _hide(self, actor: Any) -> None:
        if actor in range(4) and self.known[actor]:
            if sum(self.known) == 1:
                raise self._error(f"the record hides the draw of seat {actor}, the only seat "
                                  "whose tiles it showed")
            self.known[actor] = False

    def _error(self, message: str) -> RecordError:
        return RecordError(message, path=self.path, position=f"event {self.index}")

    # --- queries --------------------------------------------------------------------------

    @property
    def table(self) -> TableState:
        """A followed seat's state, for the public fields (the same in every seat's)."""
        return self.states[self.known.index(True)]

    def view(self, seat: int) -> TableState:
        """Seat ``seat``'s own view of the table: its live state (``.copy()`` to keep it)."""
        if not self.known[seat]:
            raise self._error(f"the record hides seat {seat}'s tiles")
        return self.states[seat]

    def concealed(self, seat: int) -> np.ndarray:
        """uint8[34] concealed counts of ``seat`` (the drawn tile included); zero if hidden."""
        if not self.known[seat]:
            return np.zeros(34, dtype=np.uint8)
        return self.states[seat].hand

    @property
    def hands(self) -> np.ndarray:
        """uint8[4, 34]: every seat's concealed counts (a new array)."""
        return np.stack([self.concealed(s) for s in range(4)])

    @property
    def public(self) -> np.ndarray:
        """int[34]: copies of each kind on the table (rivers, melds, dora indicators)."""
        t = self.table
        return 4 - t.unseen.astype(np.int64) - t.hand

    def waits(self, seat: int) -> np.ndarray:
        """bool[34]: kinds completing ``seat``'s concealed 3n+1 tiles (shape only, no yaku;
        a kind all four of whose copies it holds is no wait); none while it holds 3n+2."""
        hand = self.concealed(seat)
        if hand.sum() % 3 != 1:
            return np.zeros(34, dtype=bool)
        return wait_mask(hand, n_takes(self.table.melds[seat]) == 0)

    def ronnable(self, seat: int) -> np.ndarray:
        """bool[34]: kinds ``seat`` may ron now: its waits unless it is furiten (own
        discards, a win passed since its last discard, or one passed after its riichi;
        ``TableState.furiten``). Yaku are not checked."""
        waits = self.waits(seat)
        if waits.any() and self.states[seat].furiten:
            return np.zeros(34, dtype=bool)
        return waits


def _reason(exc: RecordError) -> str:
    """The message of a state's RecordError without its own (state-counted) position."""
    text = str(exc)
    prefix = f"{exc.position}: " if exc.position and exc.path is None else ""
    return text[len(prefix):] if prefix and text.startswith(prefix) else text
