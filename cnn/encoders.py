"""Plane encoders of Gao et al. (T§4.1 Table 4.1, T§6.1 Table 6.1, P§IV Table I; spec §1-2).

A plane is 34 rows (tile kinds, Tenhou order m, p, s, E S W N P F C [PROPOSAL §1]) by 4
columns (copies). Three fillings:

* COUNT (thermometer): row ``t`` holds ``k`` ones from the left for ``k`` tiles of kind ``t``
  (hand, discards, melds, dora indicators; a red five counts as a plain five);
* ROWMARK: the whole row set (red fives in hand, round wind, own wind);
* CONST: the whole plane 0 or 1 (other players' riichi, rank one-hot, kyoku one-hot).

The full tensor built here has 87 planes; the variants are channel subsets of it:

====  =====================================================================================
ch    content
====  =====================================================================================
0     own concealed hand (COUNT)
1     red fives in hand (ROWMARK on 5m / 5p / 5s)
2-5   discards of self, shimocha, toimen, kamicha (COUNT; called discards stay [PROPOSAL])
6-9   melds of the same four seats (COUNT; closed kans included [PROPOSAL])
10    dora indicators (COUNT, every revealed one)
11-13 riichi of shimocha, toimen, kamicha (CONST; accepted riichi [PROPOSAL])
14-17 own rank 1st..4th (CONST one-hot; ties by seat order [PROPOSAL])
18-25 kyoku E1..E4, S1..S4 (CONST one-hot, 4 * wind + dealer index, clamped [PROPOSAL])
26    round wind (ROWMARK)
27    own wind (ROWMARK)
28-40 past 1: hand, 4 discards, 4 melds, dora, 3 riichi
41-85 past 2..6: hand, 4 discards, 4 melds (9 each)
86    the discard offered to a call (ROWMARK) -- not in the paper, which leaves the pon / chi
      input [MISSING] (spec §2.6 item 8); used by the pon and chi nets only [PROPOSAL]
87-122 decision features (shanten, the calls' effect, acceptance, tiles left; the
      opponents' safe kinds, tenpai and danger): :mod:`cnn.features`, read only by nets
      trained with a feature set [PROPOSAL]
====  =====================================================================================

``m86`` is channels 0-85 (P Table I), ``m68`` is 0-67 (T Table 6.1), ``m56`` drops rank and
kyoku and past 5-6 (T Table 4.1). A "round" (the unit of "past k", T§4.1, T§5.2) is one own
discard decision [AMBIG, spec §2.6 item 2]: past k is the situation at the seat's discard
decision k turns before; before that many turns exist the past planes are zero [PROPOSAL].

Situations are kept compact (a few 34-count vectors) and expanded to planes only when
encoded; :func:`situation` reads only the TableState contract's fields.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cnn.features import FIRST, N_FEATURES, task_features
from game.tiles import RED_IDS, RED_KINDS

N_PLANES = FIRST + N_FEATURES
OFFER_PLANE = 86
N_PAST = 6
_COLS = np.arange(4, dtype=np.uint8)

# Channel subsets of the full tensor per model variant (spec §2.1, §2.3, §2.4).
_PRESENT16 = list(range(0, 14)) + [26, 27]
_PAST1 = list(range(28, 41))
MODEL_CHANNELS: dict[str, list[int]] = {
    "m56": _PRESENT16 + _PAST1 + list(range(41, 68)),
    "m68": list(range(0, 68)),
    "m86": list(range(0, 86)),
}
MODEL_PLANES = {name: len(chs) for name, chs in MODEL_CHANNELS.items()}


def channels(model: str, *, offer: bool = False, task: str | None = None,
             features: int = 0) -> list[int]:
    """Full-tensor channels a model variant reads: plus the offer plane for call nets, plus
    the decision features a ``task`` net of feature set ``features`` reads
    (:func:`cnn.features.task_features`)."""
    if model not in MODEL_CHANNELS:
        raise ValueError(f"unknown model variant {model!r}; known: {sorted(MODEL_CHANNELS)}")
    extra = task_features(task, features) if task and features else []
    return MODEL_CHANNELS[model] + ([OFFER_PLANE] if offer else []) + extra


@dataclass
class Situation:
    """What one seat sees at one moment, in compact form (relative seat order)."""

    counts: np.ndarray  # uint8 (10, 34): hand, discards x4, melds x4, dora indicators
    riichi: np.ndarray  # uint8 (3,): shimocha, toimen, kamicha
    aka: np.ndarray  # uint8 (3,): red 5m, 5p, 5s in hand
    round_wind: int  # 0..3
    own_wind: int  # 0..3
    rank: int  # 0..3
    kyoku_index: int  # 0..7


def rank_of(scores, seat: int) -> int:
    """0-based rank of ``seat``; equal scores rank by seat order (Tenhou's rule)."""
    mine = scores[seat]
    return sum(1 for s in range(4) if scores[s] > mine or (scores[s] == mine and s < seat))


def _kind_counts(kinds) -> np.ndarray:
    return np.bincount(np.asarray(kinds, dtype=np.int64), minlength=34).astype(np.uint8)


def situation(state) -> Situation:
    """Compact situation of a TableState (reads only the contract's fields)."""
    seat = state.seat
    counts = np.zeros((10, 34), dtype=np.uint8)
    counts[0] = np.minimum(np.asarray(state.hand, dtype=np.uint8), 4)
    for rel in range(4):
        s = (seat + rel) % 4
        if state.discards[s]:
            counts[1 + rel] = _kind_counts([d.kind for d in state.discards[s]])
        meld_ids = [t for m in state.melds[s] for t in m.tiles]
        if meld_ids:
            counts[5 + rel] = _kind_counts([t // 4 for t in meld_ids])
    if state.dora_indicators:
        counts[9] = _kind_counts([t // 4 for t in state.dora_indicators])
    np.minimum(counts, 4, out=counts)
    riichi = np.array([bool(state.riichi[(seat + r) % 4]) for r in (1, 2, 3)], dtype=np.uint8)
    hand_ids = set(state.hand_ids)
    aka = np.array([rid in hand_ids for rid in RED_IDS], dtype=np.uint8)
    round_wind = min(max(int(state.round_wind), 0), 3)
    return Situation(
        counts=counts,
        riichi=riichi,
        aka=aka,
        round_wind=round_wind,
        own_wind=(seat - state.dealer) % 4,
        rank=rank_of(state.scores, seat),
        kyoku_index=min(4 * round_wind + int(state.kyoku), 7),
    )


def _thermometer(counts: np.ndarray) -> np.ndarray:
    """(k, 34) counts -> (k, 34, 4) COUNT planes: ``col < count``."""
    return (counts[:, :, None] > _COLS).astype(np.uint8)


def encode(present: Situation, pasts: list[Situation | None], offered: int | None = None,
           features: np.ndarray | None = None) -> np.ndarray:
    """The full uint8 ``(N_PLANES, 34, 4)`` tensor; ``pasts[k-1]`` is past k (None = zeros);
    ``features`` fills planes 87.. (:func:`cnn.features.feature_planes`; None = zeros)."""
    out = np.zeros((N_PLANES, 34, 4), dtype=np.uint8)
    therm = _thermometer(present.counts)
    out[0] = therm[0]
    for i, kind in enumerate(RED_KINDS):
        if present.aka[i]:
            out[1, kind] = 1
    out[2:11] = therm[1:10]
    out[11:14] = present.riichi[:, None, None]
    out[14 + present.rank] = 1
    out[18 + present.kyoku_index] = 1
    out[26, 27 + present.round_wind] = 1
    out[27, 27 + present.own_wind] = 1
    if pasts and pasts[0] is not None:
        p = pasts[0]
        out[28:38] = _thermometer(p.counts)
        out[38:41] = p.riichi[:, None, None]
    for k in range(2, N_PAST + 1):
        p = pasts[k - 1] if len(pasts) >= k else None
        if p is not None:
            base = 41 + 9 * (k - 2)
            out[base : base + 9] = _thermometer(p.counts[:9])
    if offered is not None:
        out[OFFER_PLANE, int(offered)] = 1
    if features is not None:
        out[FIRST:] = features
    return out


@dataclass
class SeatHistory:
    """Past situations of one seat within one hand, keyed by own discard count (turn).

    The situation at the first discard decision of turn ``j`` is kept as snapshot ``j``; at any
    decision with ``turns[seat] == j`` past k is snapshot ``j - k`` (T§4.1 "last rounds").
    """

    hand_key: tuple | None = None
    snapshots: dict[int, Situation] = field(default_factory=dict)

    def _sync(self, state) -> None:
        key = (state.round_wind, state.kyoku, state.honba, state.dealer)
        turn = state.turns[state.seat]
        if key != self.hand_key or (self.snapshots and turn < max(self.snapshots)):
            self.hand_key = key
            self.snapshots = {}

    def reset(self) -> None:
        self.hand_key = None
        self.snapshots = {}

    def record(self, state) -> Situation:
        """Keep ``state`` as its turn's snapshot (the first discard decision of the turn) and
        return its present situation."""
        self._sync(state)
        turn = state.turns[state.seat]
        present = situation(state)
        self.snapshots.setdefault(turn, present)
        return present

    def encode(self, state, *, discard_decision: bool, offered: int | None = None,
               features: np.ndarray | None = None) -> np.ndarray:
        """Encode ``state`` with its past planes; a discard decision is recorded as a snapshot."""
        if discard_decision:
            present = self.record(state)
        else:
            self._sync(state)
            present = situation(state)
        turn = state.turns[state.seat]
        pasts = [self.snapshots.get(turn - k) for k in range(1, N_PAST + 1)]
        return encode(present, pasts, offered, features)


def offered_kind(state) -> int | None:
    """Kind of the discard that can be called now (TableState.last_discard), if any."""
    last = getattr(state, "last_discard", None)
    return None if last is None else int(last[1]) // 4


def suit_rows(perm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the 34 kinds with the three suits reordered by ``perm`` (honors stay), and the
    map of each old kind to its new row. The rules are the same for every suit (all-green
    aside), so a situation with its suits exchanged is as good a sample, its discard label
    moved the same way [deviation, --augment-suits]."""
    rows = np.concatenate([np.arange(9) + 9 * int(s) for s in perm] + [np.arange(27, 34)])
    new_row = np.empty(34, dtype=np.int64)
    new_row[rows] = np.arange(34)
    return rows, new_row
