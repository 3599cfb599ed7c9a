"""``python -m player.compare``: paired ablation of two evaluate runs on the same walls.

Oracle: two runs of the same deterministic agents on the same walls are identical (difference
exactly 0); the per-game differences are recomputed by hand from the two results files.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from player.compare import main
from player.evaluate import main as evaluate_main


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("cmp")
    for name, player in (("a", "efficiency"), ("b", "tsumogiri"), ("c", "efficiency")):
        assert evaluate_main(["--player", player, "--vs", "efficiency", "--games", "8", "--seed", "3",
                              "--workers", "1", "--out", str(root / name)]) == 0
    assert evaluate_main(["--player", "efficiency", "--vs", "efficiency", "--games", "4", "--seed", "4",
                          "--workers", "1", "--out", str(root / "other_seed")]) == 0
    return root


def _ranks(path):
    rows = [json.loads(x) for x in (path / "results.jsonl").read_text().splitlines()]
    return {r["game"]: r["ranks"][r["player_seat"]] for r in rows}


def test_paired_difference(runs, capsys):
    assert main([str(runs / "a"), str(runs / "b"), "--json"]) == 0
    c = json.loads(capsys.readouterr().out)
    a, b = _ranks(runs / "a"), _ranks(runs / "b")
    d = np.array([b[g] - a[g] for g in sorted(a)], dtype=float).reshape(-1, 4).mean(1)
    assert c["games"] == 8 and c["blocks"] == 2
    assert c["diff_b_minus_a"] == pytest.approx(d.mean())
    assert c["se"] == pytest.approx(d.std(ddof=1) / np.sqrt(2))
    assert c["mean_rank_a"] == pytest.approx(np.mean(list(a.values())))
    assert main([str(runs / "a"), str(runs / "c"), "--json"]) == 0
    same = json.loads(capsys.readouterr().out)
    assert same["diff_b_minus_a"] == 0.0 and same["rates_a"] == same["rates_b"]
    # tsumogiri never wins: no points per win (None, strict JSON), while efficiency's are a score
    assert c["rates_b"]["points_per_win"] is None and c["rates_a"]["points_per_win"] >= 1000
    assert main([str(runs / "a"), str(runs / "b")]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert "points/win" in rows[-3] and rows[-1].split()[-2] == "-"


def test_unpaired_or_missing_runs_exit_2(runs, tmp_path, capsys):
    assert main([str(runs / "a"), str(runs / "other_seed")]) == 2
    assert main([str(runs / "a"), str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "seed" in err[0] and "nothing" in err[1]


def test_pooled_pairs_keep_each_pairs_walls_apart(runs, capsys):
    """Lists of runs pair in order; the pooled blocks are each pair's blocks (a wall seed of
    one pair is not the same wall in the other), recomputed by hand."""
    assert main([f"{runs / 'a'},{runs / 'c'}", f"{runs / 'b'},{runs / 'b'}", "--json"]) == 0
    c = json.loads(capsys.readouterr().out)
    a, b, cc = _ranks(runs / "a"), _ranks(runs / "b"), _ranks(runs / "c")
    d = np.concatenate([np.array([b[g] - a[g] for g in sorted(a)], dtype=float).reshape(-1, 4).mean(1),
                        np.array([b[g] - cc[g] for g in sorted(a)], dtype=float).reshape(-1, 4).mean(1)])
    assert c["games"] == 16 and c["blocks"] == 4
    assert c["diff_b_minus_a"] == pytest.approx(d.mean())
    assert c["se"] == pytest.approx(d.std(ddof=1) / np.sqrt(4))
    assert main([f"{runs / 'a'},{runs / 'c'}", str(runs / "b")]) == 2
    assert main([f"{runs / 'a'},{runs / 'b'}", f"{runs / 'b'},{runs / 'a'}"]) == 2  # other players in a pair
    err = capsys.readouterr().err
    assert "not paired" in err and "same A, B" in err
