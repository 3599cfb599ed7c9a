"""The ron shares by the wall (regressors/ron_wall.py) and their place in a hazard file.

Oracles: the phoenix records replayed here seat by seat (each discard against the waits of
every other seat that is tenpai then, by the table state's own waits, counted without the
dataset), and the bands worked by hand.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from game.errors import ModelFileError
from game.records import read_events
from game.state import TableState
from game.tiles import mjai_to_kind
from regressors import ron_wall
from regressors.datasets import build_dataset
from regressors.hazard import HazardModel

PHOENIX = sorted(str(p) for p in (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix"
                                   / "mjlog").glob("*.xml"))
SHIPPED = Path(__file__).resolve().parents[1] / "regressors" / "models" / "hazard.json"


def _replayed_counts(files: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(classes, bands): discards of a tenpai seat's waits and their number at random among its
    unseen tiles, by whether it is in riichi and the discarder's tiles left."""
    hits = np.zeros((2, len(ron_wall.BANDS)))
    expected = np.zeros_like(hits)
    for path in files:
        states = [TableState(s) for s in range(4)]
        for e in read_events(path):
            if e["type"] == "dahai":
                wall = states[e["actor"]].tiles_left
                band = next(b for b, (lo, hi) in enumerate(ron_wall.BANDS) if lo <= wall <= hi)
                for st in states:
                    x = st.seat
                    if x == e["actor"] or st.hand.sum() % 3 != 1 or not st.waits:
                        continue
                    un = np.asarray(st.unseen, float)
                    c = int(bool(st.riichi[x]))
                    hits[c, band] += mjai_to_kind(e["pai"]) in st.waits
                    expected[c, band] += sum(un[w] for w in st.waits) / un.sum()
            for st in states:
                st.update(e)
    return hits, expected


@pytest.fixture(scope="module")
def phoenix():
    files = PHOENIX[:14]
    return files, build_dataset(files, progress=False)


def test_shares_are_the_records_discards_of_the_waits_by_the_wall(phoenix):
    files, ds = phoenix
    hits, expected = _replayed_counts(files)
    d = ron_wall.fit(ds.arrays)
    for c, name in enumerate(ron_wall.CLASSES):
        assert d[f"{name}_hits"] == hits[c].astype(int).tolist()
        np.testing.assert_allclose(d[name], np.minimum(1.0, (hits[c] + 0.5) / (expected[c] + 0.5)), atol=1e-3)
    # the bands pooled are the one share of the hazard model
    free = (hits[0].sum() + 0.5) / (expected[0].sum() + 0.5)
    assert free == pytest.approx(
        (sum(d["free_hits"]) + 0.5) / (sum(d["free_expected"]) + 0.5), rel=1e-3)
    # the experts read a quiet wait better as the hand goes on
    assert d["free"][0] > d["free"][2]


def test_per_turn_reads_the_band_of_each_turns_wall():
    d = {"bands": [list(b) for b in ron_wall.BANDS], "free": [0.9, 0.6, 0.4, 0.3], "riichi": [0.5, 0.4, 0.3, 0.2]}
    # 50, 46, 42, ..., 2 tiles left at the discards after our n-th
    free = ron_wall.per_turn(d, 50, 13, riichi=False)
    assert free.tolist() == [0.9] * 2 + [0.6] * 4 + [0.4] * 3 + [0.3] * 4
    assert ron_wall.per_turn(d, 14, 3, riichi=True).tolist() == [0.2] * 3
    assert ron_wall.band_of(np.array([75, 70, 45, 44, 0, -3])).tolist() == [0, 0, 0, 1, 3, 3]


def test_a_hazard_file_keeps_its_ron_wall_and_rejects_bad_ones(tmp_path):
    shipped = HazardModel.load(SHIPPED)
    assert shipped.ron_wall is not None  # the player's option reads it
    path = shipped.save(tmp_path / "hazard.json")
    assert HazardModel.load(path).ron_wall == shipped.ron_wall
    d = json.loads(path.read_text())
    d["ron_wall"]["free"] = d["ron_wall"]["free"][:-1]
    path.write_text(json.dumps(d))
    with pytest.raises(ModelFileError, match="ron_wall free"):
        HazardModel.load(path)
    del d["ron_wall"]
    path.write_text(json.dumps(d))
    assert HazardModel.load(path).ron_wall is None  # a file fitted before it still loads


def test_command_writes_the_fit_into_a_hazard_file(tmp_path, capsys):
    target = tmp_path / "hazard.json"
    d = json.loads(SHIPPED.read_text())
    del d["ron_wall"]
    target.write_text(json.dumps(d))
    assert ron_wall.main(["--records", *PHOENIX[:2], "--write", str(target), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert HazardModel.load(target).ron_wall == printed
    assert ron_wall.main(["--records", str(tmp_path / "none*.xml")]) == 2
