"""``python -m player.relabel``: a teacher's choices at a student's states (DAgger samples).

Oracles: a teacher that is the recorded player itself (deterministic) gives back the
record's own samples, plane for plane and label for label (``cnn.bot_data``'s dataset of the
same seats); another teacher keeps the planes and answers with its own legal choices;
``cnn.train_bot --extra-dataset`` trains on the records' samples and these together.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from cnn.bot_data import build_dataset, merge
from player.relabel import main
from regressors.datasets import read_npz


@pytest.fixture(scope="module")
def game_file(tmp_path_factory):
    """One game of efficiency (seat 0) against three random agents, as evaluate logs it."""
    from game.match import play_game
    from player.registry import make_agent

    agents = [make_agent("efficiency")] + [make_agent("random", seed=s) for s in range(3)]
    result = play_game(agents, seed=5)
    events = [{**result.events[0], "names": result.names}] + result.events[1:]
    path = tmp_path_factory.mktemp("rec") / "g.mjson"
    path.write_text("".join(json.dumps(ev) + "\n" for ev in events))
    return path


def test_the_player_itself_as_teacher_gives_the_records_samples(game_file, tmp_path, capsys):
    out = tmp_path / "rl.npz"
    assert main(["--records", str(game_file), "--seats", "efficiency", "--teacher", "efficiency",
                 "--out", str(out)]) == 0
    got, want = read_npz(out), build_dataset([game_file], players=frozenset({"efficiency"}), progress=False)
    assert len(want["discard_y"]) > 20
    for k in ("discard_x", "discard_y", "discard_mask", "riichi_y"):
        np.testing.assert_array_equal(got[k], want[k])


def test_another_teacher_answers_at_the_same_states(game_file, tmp_path, capsys):
    out = tmp_path / "rl.npz"
    assert main(["--records", str(game_file), "--seats", "efficiency", "--teacher", "random",
                 "--out", str(out), "--workers", "1"]) == 0
    got, want = read_npz(out), build_dataset([game_file], players=frozenset({"efficiency"}), progress=False)
    n = min(len(got["discard_y"]), len(want["discard_y"]))
    assert n > 20
    assert got["discard_mask"][np.arange(len(got["discard_y"])), got["discard_y"]].all()  # legal answers
    assert (got["discard_y"][:n] != want["discard_y"][:n]).mean() > 0.3
    assert main(["--records", str(game_file), "--seats", "nobody", "--out", str(tmp_path / "x.npz")]) == 2
    assert "nobody" in capsys.readouterr().err


def test_merge_keeps_the_games_apart():
    a = {"discard_y": np.array([1, 2]), "discard_game": np.array([0, 1])}
    b = {"discard_y": np.array([3]), "discard_game": np.array([0])}
    m = merge([a, b])
    assert m["discard_y"].tolist() == [1, 2, 3] and m["discard_game"].tolist() == [0, 1, 2]


def test_train_bot_adds_the_extra_dataset(game_file, tmp_path, capsys):
    from cnn.train_bot import main as train_main

    rl = tmp_path / "rl.npz"
    assert main(["--records", str(game_file), "--seats", "efficiency", "--teacher", "random", "--out", str(rl)]) == 0
    out = tmp_path / "run"
    capsys.readouterr()
    assert train_main(["--records", str(game_file), "--model", "m56", "--out", str(out), "--epochs", "1",
                       "--max-steps", "1", "--tasks", "discard", "--quiet", "--extra-dataset", str(rl)]) == 0
    line = [x for x in capsys.readouterr().out.splitlines() if x.startswith("dataset")][0]
    n_rec = len(build_dataset([game_file], progress=False)["discard_y"])
    assert f"'discard': {n_rec + len(read_npz(rl)['discard_y'])}," in line


def test_a_valuing_teacher_gives_its_value_of_every_discard_kind(game_file, tmp_path):
    out = tmp_path / "rl.npz"
    assert main(["--records", str(game_file), "--seats", "efficiency", "--teacher", "mdp", "--out", str(out)]) == 0
    got = read_npz(out)
    values, mask, y = got["discard_value"], got["discard_mask"], got["discard_y"]
    valued = np.isfinite(values)
    assert len(y) > 20 and valued.any(axis=1).mean() > 0.8
    assert not (valued & ~mask).any()  # only legal kinds are valued
    assert ((values[valued] >= -4.0) & (values[valued] <= -1.0)).all()  # minus an expected rank
    rows = np.flatnonzero(valued.any(axis=1))
    chosen = values[rows, y[rows]]
    assert np.isfinite(chosen).all()
    # the teacher plays its best value but for near-ties
    assert (chosen >= np.nanmax(values[rows], axis=1) - 0.05).all()


def test_a_teacher_without_values_leaves_them_unknown(game_file, tmp_path):
    out = tmp_path / "rl.npz"
    assert main(["--records", str(game_file), "--seats", "efficiency", "--teacher", "efficiency",
                 "--out", str(out)]) == 0
    assert np.isnan(read_npz(out)["discard_value"]).all()


def test_soft_targets_are_the_softmax_of_the_valued_kinds():
    from cnn.train_bot import soft_targets

    rng = np.random.default_rng(0)
    values = np.full((50, 34), np.nan, np.float32)
    for row in values:
        kinds = rng.choice(34, size=rng.integers(0, 8), replace=False)
        row[kinds] = -2.5 + rng.normal(0, 0.01, len(kinds))
    p, has = soft_targets(values, 0.003)
    n_valued = np.isfinite(values).sum(axis=1)
    assert (has == (n_valued >= 2)).all() and not p[~has].any()
    for row, target in zip(values[has], p[has]):
        kinds = np.flatnonzero(np.isfinite(row))
        e = np.exp((row[kinds].astype(np.float64) - row[kinds].max()) / 0.003)
        np.testing.assert_allclose(target[kinds], e / e.sum(), rtol=1e-5, atol=1e-7)
        assert target[np.isnan(row)].sum() == 0.0


def test_train_bot_learns_the_teachers_values(game_file, tmp_path, capsys):
    from cnn.train_bot import main as train_main

    rl = tmp_path / "rl.npz"
    assert main(["--records", str(game_file), "--seats", "efficiency", "--teacher", "mdp", "--out", str(rl)]) == 0
    n_soft = int((np.isfinite(read_npz(rl)["discard_value"]).sum(axis=1) >= 2).sum())
    capsys.readouterr()
    assert train_main(["--records", str(game_file), "--model", "m56", "--out", str(tmp_path / "run"), "--epochs", "1",
                       "--max-steps", "2", "--tasks", "discard", "--quiet", "--extra-dataset", str(rl),
                       "--soft-targets", "0.003", "--augment-suits"]) == 0
    n_all = len(build_dataset([game_file], progress=False)["discard_y"]) + len(read_npz(rl)["discard_y"])
    assert f"soft targets (tau 0.003, weight 0.5) on {n_soft} of {n_all} samples" in capsys.readouterr().out
