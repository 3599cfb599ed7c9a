"""Exact shanten against the 40,000 reference hands and riichienv on hands of every size."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from game.errors import TileError
from game.tiles import hand_counts
from search.shanten import (
    apply_tile_nb, part_indices_nb, regular_idx_nb, shanten, shanten_batch, shanten_chiitoi,
    shanten_idx_nb, shanten_kokushi, shanten_nb, shanten_regular, tables,
)

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "shanten"
SIZES = (14, 13, 11, 10, 8, 7, 5, 4, 2, 1)


def _reference(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Hands (N, 34) and the columns regular, kokushi, chiitoitsu (data/README.md)."""
    d = np.loadtxt(DATA / f"p_{name}_10000.txt", dtype=np.int64)
    hands = np.zeros((len(d), 34), np.uint8)
    np.add.at(hands, (np.repeat(np.arange(len(d)), 14), d[:, :14].ravel()), 1)
    return hands, d[:, 14:]


@pytest.mark.parametrize("name", ["normal", "hon", "tin", "koku"])
def test_reference_hands_exact(name):
    hands, ref = _reference(name)
    assert len(hands) == 10000
    reg = np.array([shanten_regular(h) for h in hands])
    kok = np.array([shanten_kokushi(h) for h in hands])
    chi = np.array([shanten_chiitoi(h) for h in hands])
    assert (reg == ref[:, 0]).all()
    assert (kok == ref[:, 1]).all()
    assert (chi == ref[:, 2]).all()
    assert (shanten_batch(hands) == ref.min(axis=1)).all()


def _random_hands(rng: np.random.Generator, n: int, size: int, kinds: np.ndarray) -> np.ndarray:
    """n random hands of ``size`` tiles drawn without replacement from 4 copies of kinds."""
    wall = np.repeat(kinds, 4)
    out = np.zeros((n, 34), np.uint8)
    for i in range(n):
        pick = rng.choice(len(wall), size, replace=False)
        np.add.at(out[i], wall[pick], 1)
    return out


def _kinds_for(rng: np.random.Generator, style: int) -> np.ndarray:
    if style == 0:
        return np.arange(34)
    suits = rng.choice(3, style, replace=False)  # one or two suits (concentrated hands)
    ks = np.concatenate([np.arange(9 * s, 9 * s + 9) for s in suits])
    if rng.random() < 0.5:
        ks = np.concatenate([ks, np.arange(27, 34)])
    return ks


def _riichienv_shanten(counts: np.ndarray) -> int:
    import riichienv

    ids = [4 * k + j for k in range(34) for j in range(int(counts[k]))]
    return int(riichienv.calculate_shanten(ids))


@pytest.mark.parametrize("size", SIZES)
def test_random_hands_of_every_size_match_riichienv(size):
    # a hand with c calls holds 14 - 3c (after a draw) or 13 - 3c tiles; riichienv's
    # calculate_shanten takes the concealed tiles alone in the same way
    rng = np.random.default_rng(size)
    hands = np.concatenate([
        _random_hands(rng, 400, size, _kinds_for(rng, style)) for style in (0, 1, 2)
        for _ in range(2)
    ])
    ours = shanten_batch(hands)
    ref = np.array([_riichienv_shanten(h) for h in hands])
    bad = np.flatnonzero(ours != ref)
    assert not len(bad), [(hands[i].tolist(), int(ours[i]), int(ref[i])) for i in bad[:3]]
    assert (ours[:200] == np.array([shanten(h) for h in hands[:200]])).all()


def test_hand_strings():
    assert shanten(hand_counts("123m456p789s1122z")) == 0
    assert shanten(hand_counts("123m456p789s11z")) == -1
    assert shanten(hand_counts("245568m245568p77s")) == 2     # the classic table trap
    assert shanten(hand_counts("1111m")) == 1                  # a fifth 1m cannot be a head
    assert shanten(hand_counts("19m19p19s1234567z")) == 0      # kokushi 13-sided
    assert shanten(hand_counts("11223344556677z")) == -1        # chiitoitsu of honours
    assert shanten_chiitoi(hand_counts("1111223344556m")) == 2  # a quad is one pair (not 1)
    assert shanten(hand_counts("1z")) == 0 and shanten(hand_counts("11z")) == -1


def test_incremental_indices_follow_draws_and_discards():
    suit, honor = tables()
    rng = np.random.default_rng(7)
    hand = _random_hands(rng, 1, 13, np.arange(34))[0]
    idx = part_indices_nb(hand)
    for _ in range(300):
        draw = int(rng.choice(np.flatnonzero(hand < 4)))
        hand[draw] += 1
        apply_tile_nb(idx, draw, 1)
        assert (idx == part_indices_nb(hand)).all()
        assert shanten_idx_nb(idx, suit, honor) == shanten_nb(hand, suit, honor)
        assert regular_idx_nb(idx, 4, suit, honor) == shanten_regular(hand)
        cut = int(rng.choice(np.flatnonzero(hand > 0)))
        hand[cut] -= 1
        apply_tile_nb(idx, cut, -1)
        assert shanten_idx_nb(idx, suit, honor) == shanten(hand)


def test_bad_hands_raise_tile_error():
    with pytest.raises(TileError):
        shanten(np.zeros(34, np.uint8))                     # 0 tiles
    with pytest.raises(TileError):
        shanten(hand_counts("123m456p789s111z"))            # 12 tiles
    with pytest.raises(TileError):
        shanten_chiitoi(hand_counts("1122m"))               # chiitoitsu needs 13/14
    with pytest.raises(TileError):
        shanten_batch(np.full((2, 34), 5, np.uint8))
    with pytest.raises(TileError):
        shanten_batch(np.zeros((3, 33), np.uint8))


def test_part_classes_reproduce_the_min_plus_combination():
    # Oracle: the uncompressed per-part costs (fewest tiles to add for m melds + h heads),
    # combined by brute force over every split of the melds and the head. The class tables
    # must give the same R for every meld count, on random and on concentrated parts.
    from search._shanten_tables import _build_costs

    suit_cost = _build_costs(9, True).astype(np.int64)
    honor_cost = _build_costs(7, False).astype(np.int64)
    suit, honor = tables()
    rng = np.random.default_rng(11)
    n = 4000
    idx = np.stack([rng.integers(0, 5 ** 9, n), rng.integers(0, 5 ** 9, n),
                    rng.integers(0, 5 ** 9, n), rng.integers(0, 5 ** 7, n)], axis=1)
    idx[: n // 2, 0] = rng.integers(0, 5 ** 5, n // 2)  # few kinds: low costs, more ties
    idx[: n // 4, 3] = 0
    costs = [suit_cost[idx[:, 0]], suit_cost[idx[:, 1]], suit_cost[idx[:, 2]],
             honor_cost[idx[:, 3]]]
    for n_melds in range(5):
        best = np.full(n, 99)
        for m0 in range(n_melds + 1):
            for m1 in range(n_melds + 1 - m0):
                for m2 in range(n_melds + 1 - m0 - m1):
                    ms = (m0, m1, m2, n_melds - m0 - m1 - m2)
                    for head in range(4):
                        total = sum(costs[p][:, 2 * ms[p] + (p == head)] for p in range(4))
                        best = np.minimum(best, total)
        ours = np.array([regular_idx_nb(i, n_melds, suit, honor) for i in idx])
        assert (ours == np.minimum(best, 15) - 1).all(), n_melds


def test_stale_table_files_are_ignored(tmp_path):
    from search import _shanten_tables as T

    bad = tmp_path / "t.npz"
    np.savez(bad, suit=np.zeros(5 ** 9, np.uint64), honor=np.zeros(5 ** 7, np.uint64))
    assert T._try_load(bad) is None                       # the old 64-bit layout
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    assert T._try_load(tmp_path / "junk.npz") is None
    suit, honor = tables()
    assert T._try_save(tmp_path / "ok.npz", suit, honor)
    got = T._try_load(tmp_path / "ok.npz")
    assert got is not None and np.array_equal(got[0], suit) and np.array_equal(got[1], honor)
