"""The winning shape and waits (``search/waits.py``), the one rule that the hand graph and
the estimators' record labels share, against the ``mahjong`` library's agari check."""
from __future__ import annotations

import numpy as np
import pytest
from mahjong.agari import Agari

from game.tiles import hand_counts
from search.waits import is_complete, wait_mask


def _random_hand(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` tiles, mostly of one suit, where waits are common."""
    c = np.zeros(34, np.int64)
    while c.sum() < size:
        k = rng.integers(0, 9) if rng.random() < 0.6 else rng.integers(0, 34)
        if c[k] < 4:
            c[k] += 1
    return c


YAO = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]


def _near_win(rng: np.random.Generator, shape: str) -> np.ndarray:
    """A 14-tile hand of ``shape`` (four melds and a pair, seven pairs, kokushi), half of
    them with one tile swapped for a random other: wins and near misses."""
    while True:
        c = np.zeros(34, np.int64)
        if shape == "standard":
            c[rng.integers(34)] += 2
            for _ in range(4):
                if rng.random() < 0.6:
                    s, i = rng.integers(3), rng.integers(7)
                    c[9 * s + i: 9 * s + i + 3] += 1
                else:
                    c[rng.integers(34)] += 3
        elif shape == "pairs":
            for k in rng.integers(0, 34, 7):
                c[k] += 2
        else:
            c[YAO] = 1
            c[rng.choice(YAO)] += 1
        if c.max() <= 4:
            break
    if rng.random() < 0.5:
        c[rng.choice(np.flatnonzero(c))] -= 1
        c[rng.choice(np.flatnonzero(c < 4))] += 1
    return c


@pytest.mark.parametrize("shape", ["standard", "pairs", "kokushi"])
def test_is_complete_matches_mahjong_library_on_closed_14_tile_hands(shape):
    agari = Agari()
    rng = np.random.default_rng(len(shape))
    wins = 0
    for _ in range(2000):
        c = _near_win(rng, shape)
        expect = agari.is_agari(list(c))
        assert is_complete(c.astype(np.uint8)) == expect, c
        wins += expect
    assert 200 < wins < 1900  # wins and near misses both


def test_chiitoitsu_and_kokushi_only_closed():
    for text in ("1122m3344p5566s77z", "19m19p19s1234567z1m"):
        c = hand_counts(text)
        assert is_complete(c) and not is_complete(c, False), text
    # Four of a kind is not two pairs; kokushi needs all thirteen kinds.
    assert not is_complete(hand_counts("1111m3344p5566s77z"))
    assert not is_complete(hand_counts("19m19p19s1234566z1m"))


def test_waits_of_open_hands_match_mahjong_library():
    # Fewer concealed tiles (calls made): only the standard form completes them.
    agari = Agari()
    rng = np.random.default_rng(3)
    for size in (1, 4, 7, 10):
        for _ in range(300):
            c = _random_hand(rng, size)
            wm = wait_mask(c.astype(np.uint8), False)
            for w in range(34):
                if c[w] < 4:
                    c[w] += 1
                    assert wm[w] == agari.is_agari(list(c)), (c, w)
                    c[w] -= 1
                else:
                    assert not wm[w]  # a kind held four times is no wait


def test_the_solver_uses_the_same_rule():
    """One rule: the root-win check of the MDP solver is this module's."""
    from abstractions import _solve

    assert _solve.is_complete is is_complete
