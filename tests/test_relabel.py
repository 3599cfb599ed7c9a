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
