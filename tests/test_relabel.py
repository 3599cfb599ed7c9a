"""``python -m player.relabel``: a teacher's choices at a student's states (DAgger samples).

Oracles: a teacher that is the recorded player itself (deterministic) gives back the
record's own samples, plane for plane and label for label (``cnn.bot_data``'s dataset of the
same seats); another teacher keeps the planes and answers with its own legal choices;
``cnn.train_bot --extra-dataset`` trains on the records' samples and these together.
"""
from __future__ import annotations

import json
from pathlib import Path

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

    values = _random_values(0)
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


def _random_values(seed: int, rows: int = 50) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = np.full((rows, 34), np.nan, np.float32)
    for row in values:
        kinds = rng.choice(34, size=rng.integers(0, 8), replace=False)
        row[kinds] = -2.5 + rng.normal(0, 0.01, len(kinds))
    return values


def test_teacher_regret_is_what_each_kind_loses_against_the_best():
    from cnn.train_bot import teacher_regret

    values = _random_values(1)
    regret, has = teacher_regret(values)
    for row, r, h in zip(values, regret, has):
        kinds = np.flatnonzero(np.isfinite(row))
        assert h == (len(kinds) >= 2)
        want = np.zeros(34, np.float32)
        if h:
            want[kinds] = max(row[kinds]) - row[kinds]
        np.testing.assert_allclose(r, want, atol=1e-7)


def test_descending_the_expected_regret_moves_the_policy_to_the_teachers_best():
    import torch

    from cnn.train_bot import _expected_regret

    values = _random_values(2)
    has = np.isfinite(values).sum(axis=1) >= 2
    legal = torch.from_numpy(np.isfinite(values))  # as train_bot's --mask-loss: the teacher values every legal kind
    logits = torch.zeros(values.shape, requires_grad=True)
    opt = torch.optim.SGD([logits], lr=1e5)  # regrets are ~1e-2 rank

    def loss() -> torch.Tensor:
        return _expected_regret(logits.masked_fill(~legal, -1e4), values, "cpu")

    start = float(loss().detach())
    for _ in range(300):
        opt.zero_grad()
        now = loss()
        now.backward()
        opt.step()
    assert float(now.detach()) < 0.05 * start
    best = np.nanargmax(np.where(has[:, None], values, 0.0), axis=1)
    assert (logits.detach().masked_fill(~legal, -1e4).numpy().argmax(axis=1)[has] == best[has]).all()


def test_train_bot_keeps_the_step_of_least_heldout_regret(game_file, tmp_path, capsys):
    from cnn.train_bot import main as train_main
    from cnn.train_bot import split_games

    rl = tmp_path / "rl.npz"
    assert main(["--records", str(game_file), "--seats", "efficiency", "--teacher", "mdp", "--out", str(rl)]) == 0
    capsys.readouterr()
    # game 0 the record's own samples (no values), game 1 the teacher's: hold out the teacher's
    split = next(s for s in range(50) if split_games(np.array([0, 1]), 0.5, s).tolist() == [False, True])
    assert train_main(["--records", str(game_file), "--model", "m56", "--out", str(tmp_path / "run"), "--epochs", "1",
                       "--max-steps", "3", "--batch", "16", "--tasks", "discard", "--quiet", "--extra-dataset", str(rl),
                       "--regret-weight", "100", "--holdout", "0.5", "--split-seed", str(split), "--eval-every", "1",
                       "--mask-loss", "--lr", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "the teacher's expected regret x 100.0" in out
    logged = [float(line.split("val_regret ")[1].split()[0]) for line in out.splitlines() if "val_regret" in line]
    best = json.loads((tmp_path / "run" / "summary.json").read_text())[0]["best"]
    assert len(logged) == 3 and not np.isnan(logged).any() and best["val_regret"] == pytest.approx(min(logged), abs=5e-6)
    # --score-only: the kept net scored again on the same split, nothing written beside it
    before = sorted(p.name for p in (tmp_path / "run").iterdir())
    assert train_main(["--records", str(game_file), "--model", "m56", "--out", str(tmp_path / "run"), "--tasks",
                       "discard", "--quiet", "--extra-dataset", str(rl), "--holdout", "0.5", "--split-seed", str(split),
                       "--init", str(tmp_path / "run"), "--score-only"]) == 0
    scored = json.loads("[\n" + capsys.readouterr().out.split("\n[\n", 1)[1])[0]  # the summary after the log
    assert scored["val_regret"] == pytest.approx(best["val_regret"], abs=1e-9)
    assert scored["val_acc"] == pytest.approx(best["val_acc"], abs=1e-9)
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == before
    assert train_main(["--records", str(game_file), "--out", str(tmp_path / "run2"), "--tasks", "discard",
                       "--extra-dataset", str(rl), "--regret-weight", "100"]) == 2
    assert "--mask-loss" in capsys.readouterr().err


def test_keep_steps_writes_the_four_nets_of_every_scored_step(game_file, tmp_path, capsys):
    import shutil

    import torch

    from cnn.nets import load_checkpoint
    from cnn.train_bot import main as train_main

    common = ["--records", str(game_file), "--model", "m56", "--tasks", "discard", "--quiet", "--batch", "16",
              "--epochs", "1", "--holdout", "0.5", "--mask-loss", "--lr", "0.01"]
    start = tmp_path / "start"
    assert train_main([*common, "--out", str(start), "--max-steps", "1"]) == 0
    for task in ("pon", "chi", "riichi"):  # only copied by --keep-steps: any net of the task will do
        shutil.copyfile(Path(__file__).resolve().parents[1] / "cnn" / "models" / f"{task}.pt", start / f"{task}.pt")
    run = tmp_path / "run"
    assert train_main([*common, "--out", str(run), "--max-steps", "3", "--eval-every", "1", "--init", str(start),
                       "--keep-steps"]) == 0
    ckpts = sorted(p.name for p in (run / "ckpt").iterdir())
    assert ckpts == ["u0000", "u0001", "u0002", "u0003"]

    def weights(path) -> torch.Tensor:
        return torch.cat([v.flatten().float() for v in load_checkpoint(path).state_dict().values()])

    step = {}
    for name in ckpts:
        folder = run / "ckpt" / name
        assert sorted(p.name for p in folder.iterdir()) == ["chi.pt", "discard.pt", "pon.pt", "riichi.pt"]
        for task in ("pon", "chi", "riichi"):
            assert (folder / f"{task}.pt").read_bytes() == (start / f"{task}.pt").read_bytes()
        step[name] = weights(folder / "discard.pt")
    start_w = weights(start / "discard.pt")
    assert torch.equal(step["u0000"], start_w) and not torch.equal(step["u0001"], start_w)
    assert not torch.equal(step["u0001"], step["u0002"]) and not torch.equal(step["u0002"], step["u0003"])
    best = json.loads((run / "summary.json").read_text())[0]["best"]["step"]
    assert torch.equal(step[f"u{best:04d}"], weights(run / "discard.pt"))
    capsys.readouterr()
    assert train_main([*common, "--out", str(tmp_path / "x"), "--keep-steps"]) == 2
    assert "--init" in capsys.readouterr().err
    assert train_main([*common, "--out", str(tmp_path / "y"), "--keep-steps", "--init", str(run / "ckpt")]) == 2
    assert "lacks discard.pt, pon.pt, chi.pt, riichi.pt" in capsys.readouterr().err
    assert train_main([*common, "--out", str(run), "--keep-steps", "--init", str(start)]) == 2  # its ckpt/ kept
    assert "earlier run's checkpoints" in capsys.readouterr().err
    assert sorted(p.name for p in (run / "ckpt").iterdir()) == ckpts
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
