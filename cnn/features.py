"""Planes that carry what a decision needs beyond Gao et al.'s (issue 10, [PROPOSAL]).

The paper's nets see the table only as tiles; with a few hundred thousand samples and a CPU
they did not learn when a call pays (the chi net stayed near chance). These planes give them
the numbers a call, a riichi or a discard turns on, computed from the seat's own hand:

====  =====================================================================================
ch    content (appended to the 87 planes of :mod:`cnn.encoders`)
====  =====================================================================================
87-90 tiles left in the wall >= 8, 24, 40, 56 (CONST thermometer; the paper has no clock)
91-94 shanten of the concealed hand 0, 1, 2, >= 3 (CONST one-hot; a 14-tile hand: the best
      after one discard)
95-110 per call option (pon, chi with the called tile left / middle / right), 4 planes
      each: legal; best shanten after the call's discard lower than now; the same as now;
      a yaku path kept (:func:`game.yaku_paths.keeps_yaku`, or a yakuhai pon)
111   the offered tile is a value tile for the seat (CONST)
112   own turn: discarding this kind keeps the hand's best shanten (ROWMARK)
113   own turn: the tiles (unseen copies) that lower the shanten after discarding this kind,
      a thermometer over the copy axis: >= 1, 5, 10, 20 (acceptance, "ukeire")
114-116 opponent r (shimocha, toimen, kamicha): the kinds it cannot ron now (ROWMARK;
      :func:`regressors.features.safe_kinds`: its river, and the kinds passed since its last
      discard or, in riichi, since its declaration -- the river planes carry no order)
117-119 opponent r: P(tenpai) of the tenpai estimator in ``FEATURE_MODELS`` (:mod:`regressors.tenpai`), a CONST
      thermometer over the copy axis: >= 0.1, 0.25, 0.5, 0.75
120-122 opponent r: its danger by kind, P(tenpai) x P(kind is a wait | tenpai) of the
      wait histogram in ``FEATURE_MODELS`` (Eq. 20, closed-hand categories for every seat: the open-hand
      enumeration costs 1-2 ms), a thermometer: >= 0.5, 2, 5, 10 %
123-125 opponent r: its score above the seat's by >= 1,000, 4,000, 8,000, 12,000 points
      (CONST thermometer over the copy axis)
126-128 opponent r: its score below the seat's by the same steps
====  =====================================================================================

Which planes a net reads is :func:`task_features` of its feature set (``NetConfig.features``):
set 1 is planes 87-113 (a call net the table and call groups, the discard and riichi nets the
table and discard groups), set 2 adds the safety planes 114-122 for every task (what the
teacher's folding reads from its estimators; cnn-bot dealt in on 15.6 % of its hands where
the teacher did on 13.0 %), set 3 adds the score gaps 123-128 for every task (the placement
play of the last hands, where all of cnn-bot's edge over ``efficiency`` is, needs the points
between the seats; the encoder's own-rank one-hot does not say whether a 2,000-point win
changes the rank).
"""
from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from cnn.rules import chi_class
from game.tiles import mjai_to_kind
from game.yaku_paths import keeps_yaku, value_kinds
from regressors.estimators import load_default
from regressors.deal_in import tenpai_probs
from regressors.features import wait_categories
from search.shanten import shanten_batch
from search.ukeire import Efficiency

FIRST = 87
N_FEATURES = 42
LEFT_STEPS = (8, 24, 40, 56)
ACCEPT_STEPS = (1, 5, 10, 20)
TENPAI_STEPS = (0.1, 0.25, 0.5, 0.75)
DANGER_STEPS = (0.005, 0.02, 0.05, 0.10)
# a riichi stick; about a 1-han-30-fu ron; a non-dealer mangan; a haneman
GAP_STEPS = (1000, 4000, 8000, 12000)
TABLE = list(range(87, 95))
CALL = list(range(95, 112))
DISCARD = [112, 113]
SAFETY = list(range(114, 123))
SCORE = list(range(123, 129))
_SET1 = {"discard": TABLE + DISCARD, "riichi": TABLE + DISCARD,
         "pon": TABLE + CALL, "chi": TABLE + CALL}
_SET2 = {task: chans + SAFETY for task, chans in _SET1.items()}
FEATURE_SETS = {1: _SET1, 2: _SET2, 3: {task: chans + SCORE for task, chans in _SET2.items()}}


def task_features(task: str, feature_set: int) -> list[int]:
    """Planes 87.. that a ``task`` net of ``feature_set`` reads (0: none)."""
    if not feature_set:
        return []
    if int(feature_set) not in FEATURE_SETS:
        raise ValueError(f"unknown feature set {feature_set!r}; known: 0, {', '.join(map(str, FEATURE_SETS))}")
    return FEATURE_SETS[int(feature_set)][task]


#: The tenpai model and wait histogram that planes 117-122 read: the MDP player's estimators
#: of 0893211 (efficiency self-play), with which the shipped nets were trained; kept here so
#: that the MDP player's retrained estimators (``regressors/models``) leave cnn-bot's inputs as
#: its nets learned them.
FEATURE_MODELS = Path(__file__).resolve().parent / "models" / "features"
FEATURE_FILES = ("tenpai.json", "wait_histogram.json")


@cache
def _estimators():
    """The safety planes' tenpai model and wait histogram (loaded once)."""
    return load_default("tenpai", FEATURE_MODELS), load_default("wait_histogram", FEATURE_MODELS)


def load_feature_models() -> None:
    """Read the safety planes' model files now, where the nets are loaded (a missing or damaged
    file fails there, not at the first decision)."""
    _estimators.cache_clear()
    _estimators()


def _safety(state, out: np.ndarray) -> None:
    """Planes 114-122: each opponent's safe kinds, P(tenpai) and danger by kind."""
    tenpai, waits = _estimators()
    p_tenpai = tenpai_probs(state, tenpai)
    for r in (0, 1, 2):
        j = (state.seat + r + 1) % 4
        cats, unseen = wait_categories(state, j)
        out[114 - FIRST + r, cats == 0] = 1  # category 0 is "genbutsu": exactly safe_kinds
        for col, step in enumerate(TENPAI_STEPS):
            out[117 - FIRST + r, :, col] = p_tenpai[j] >= step
        danger = p_tenpai[j] * waits.predict(cats, unseen)
        for col, step in enumerate(DANGER_STEPS):
            out[120 - FIRST + r, danger >= step, col] = 1


def _score_gaps(scores, seat: int, out: np.ndarray) -> None:
    """Planes 123-128: each opponent's score above and below the seat's, thermometers."""
    gap = np.array([int(scores[(seat + r + 1) % 4]) - int(scores[seat]) for r in (0, 1, 2)])
    steps = np.asarray(GAP_STEPS)
    out[123 - FIRST:126 - FIRST] = (gap[:, None] >= steps)[:, None, :]  # every row alike
    out[126 - FIRST:129 - FIRST] = (-gap[:, None] >= steps)[:, None, :]


def _own_turn(hand: np.ndarray, unseen: np.ndarray, out: np.ndarray) -> int:
    """Planes 112-113 of a 3k+2 hand (the efficiency agent's shanten and acceptance of every
    discard, :mod:`search.ukeire`); returns the best shanten after a discard."""
    shanten, accept = Efficiency().discard_stats(hand, unseen, all_accept=True)
    best = int(shanten.min())  # kinds not held have shanten 99 and acceptance 0
    out[112 - FIRST, shanten == best] = 1
    for col, step in enumerate(ACCEPT_STEPS):
        out[113 - FIRST, accept >= step, col] = 1
    return best


def _call_options(state, legal: list[dict], hand: np.ndarray, now: int, out: np.ndarray) -> None:
    """Planes 95-111 for the call options among ``legal`` (slot 0 pon, 1-3 the chi classes
    of :func:`cnn.rules.chi_class`)."""
    yakuhai = value_kinds(state.seat_wind, state.round_wind)
    melded = [t // 4 for m in state.melds[state.seat] for t in m.tiles]
    offered = state.last_discard[1] // 4 if state.last_discard is not None else None
    if offered is not None and offered in yakuhai:
        out[111 - FIRST] = 1
    for a in legal:
        if a["type"] == "pon":
            slot = 0
        elif a["type"] == "chi":
            slot = chi_class(a)
        else:
            continue
        called = mjai_to_kind(a["pai"])
        consumed = [mjai_to_kind(n) for n in a["consumed"]]
        after = hand.copy()
        for k in consumed:
            after[k] -= 1
        best = int(shanten_batch(after[None])[0])  # best over the call's discards
        base = 95 - FIRST + 4 * slot
        out[base] = 1
        out[base + 1] = best < now
        out[base + 2] = best == now
        value_pon = a["type"] == "pon" and called in yakuhai
        out[base + 3] = value_pon or keeps_yaku(after, melded, [called] + consumed, yakuhai)


def feature_planes(state, legal: list[dict], safety: bool = True) -> np.ndarray:
    """The uint8 ``(N_FEATURES, 34, 4)`` planes of a decision of ``state``'s seat (planes
    114-122 zero unless ``safety``: they cost about 0.55 ms of the 0.6)."""
    out = np.zeros((N_FEATURES, 34, 4), dtype=np.uint8)
    if safety:
        _safety(state, out)
    _score_gaps(state.scores, state.seat, out)
    for i, step in enumerate(LEFT_STEPS):
        out[i] = state.tiles_left >= step
    hand = np.minimum(np.asarray(state.hand, dtype=np.uint8), 4)
    unseen = np.asarray(state.unseen, dtype=np.int64)
    n = int(hand.sum())
    if n % 3 == 2:
        now = _own_turn(hand, unseen, out)
    elif n % 3 == 1:
        now = int(shanten_batch(hand[None])[0])
        if any(a["type"] in ("pon", "chi") for a in legal):
            _call_options(state, legal, hand, now, out)
    else:
        return out
    out[4 + min(max(now, 0), 3)] = 1
    return out
