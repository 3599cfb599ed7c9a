import numpy as np
import pytest
import riichienv

from game import tiles
from game.errors import TileError


def test_mjai_names_round_trip_every_id():
    for tile_id in range(136):
        name = tiles.id_to_mjai(tile_id)
        assert tiles.mjai_to_kind(name) == tile_id // 4
        assert name.endswith("r") == (tile_id in tiles.RED_IDS)


def test_mjai_names_match_riichienv():
    # riichienv's own action serialisation names tiles the mjai way.
    for tile_id in range(136):
        action = riichienv.Action(riichienv.ActionType.DISCARD, tile_id, [])
        assert f'"pai":"{tiles.id_to_mjai(tile_id)}"' in action.to_mjai().replace(" ", "")


def test_hand_string_round_trip_and_red_fives():
    ids = tiles.parse_hand("123m406p789s11222z")
    assert 52 in ids and len(ids) == 14
    assert tiles.hand_to_string(ids) == "123m406p789s11222z"
    counts = tiles.hand_counts("1111m")
    assert counts[0] == 4 and counts.sum() == 4 and counts.dtype == np.uint8
    assert tiles.counts_to_string(tiles.hand_counts("55m0m")) == "555m"


@pytest.mark.parametrize("bad", ["12", "8z", "1x", "11111m"])
def test_bad_hand_strings_raise_tile_error(bad):
    with pytest.raises(TileError):
        tiles.hand_counts(bad)


def test_unknown_mjai_tile():
    with pytest.raises(TileError):
        tiles.mjai_to_kind("0m")


def test_dora_indicator_wraps():
    k = tiles.mjai_to_kind
    assert tiles.dora_from_indicator(k("9m")) == k("1m")
    assert tiles.dora_from_indicator(k("N")) == k("E")
    assert tiles.dora_from_indicator(k("C")) == k("P")
    assert tiles.dora_from_indicator(k("5s")) == k("6s")
