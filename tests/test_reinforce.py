"""Policy-gradient fine-tuning of cnn-bot (player.reinforce): a tiny run end to end."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from game.errors import MahjongError
from player.reinforce import advantages, main, parse_opponents


def test_advantages_are_the_normalised_rewards_of_each_discards_unit():
    games = [{"unit": np.zeros(3, dtype=int), "unit_reward": np.array([1.5])},
             {"unit": np.zeros(2, dtype=int), "unit_reward": np.array([-1.5])}]
    adv = advantages(games)
    assert adv.tolist() == [1.0, 1.0, 1.0, -1.0, -1.0]  # rewards +1.5 / -1.5, mean 0, std 1.5
    # hands as units: a game's second hand pays its discards, the units normalised together
    games = [{"unit": np.array([1, 1, 0]), "unit_reward": np.array([0.0, 0.4, 0.2])},
             {"unit": np.array([0]), "unit_reward": np.array([-0.6])}]
    r = np.array([0.0, 0.4, 0.2, -0.6])
    norm = (r - r.mean()) / r.std()
    assert np.allclose(advantages(games), norm[[1, 1, 0, 3]])


def test_hand_rewards_telescope_to_the_final_rank_and_share_out_between_the_seats():
    from game.match import play_game
    from player.agents.efficiency import EfficiencyAgent
    from player.audit import hand_value
    from player.reinforce import hand_rewards
    from regressors.estimators import load_default

    result = play_game([EfficiencyAgent() for _ in range(4)], 20261127)
    starts = [e for e in result.events if e["type"] == "start_kyoku"]
    model = load_default("final_rank")
    paid = [hand_rewards(result.events, s, result.scores, model) for s in range(4)]
    assert all(len(p) == len(starts) >= 4 for p in paid)  # an east-only game: four hands or more
    for s, p in enumerate(paid):
        # over the game a seat's hands add up to its expected rank at the start less its rank
        first = -hand_value(model, s, starts[0], result.scores, False)
        assert sum(p.values()) == pytest.approx(first - result.ranks[s], abs=1e-9)
    for key in paid[0]:  # four seats' expected ranks share out 1+2+3+4: what one gains, others lose
        assert abs(sum(p[key] for p in paid)) < 0.05  # the rank model's three Sinkhorn steps: nearly


def test_opponent_specs_and_weights():
    specs, probs = parse_opponents("efficiency*3; random*1")
    assert specs == ["efficiency", "random"] and probs.tolist() == [0.75, 0.25]
    assert parse_opponents("cnn-bot:models_dir=x")[0] == ["cnn-bot:models_dir=x"]
    with pytest.raises(MahjongError, match="nosuch"):
        parse_opponents("nosuch*1")
    with pytest.raises(MahjongError, match="weight"):
        parse_opponents("random*-1")


def test_a_tiny_run_updates_the_net_resumes_and_plots_its_curve(tmp_path, capsys):
    from cnn.nets import load_checkpoint

    out = tmp_path / "rl"
    common = ["--out", str(out), "--games", "4", "--workers", "1", "--checkpoint-every", "1"]
    assert main(common + ["--updates", "1", "--opponents", "efficiency*1", "--lr", "1e-3", "--seed", "3"]) == 0
    lines = [json.loads(x) for x in (out / "progress.jsonl").read_text().splitlines()]
    assert len(lines) == 1 and lines[0]["games"] == 4 and lines[0]["discards"] > 20
    start = load_checkpoint(out / "ckpt" / "u0000" / "discard.pt")
    after = load_checkpoint(out / "ckpt" / "u0001" / "discard.pt")
    moved = [not torch.equal(a, b) for a, b in zip(start.parameters(), after.parameters())]
    assert any(moved)
    capsys.readouterr()
    assert main(common + ["--updates", "2"]) == 2  # a run is there: --resume or another --out
    assert "--resume" in capsys.readouterr().err
    assert main(common + ["--updates", "2", "--resume"]) == 0
    assert len((out / "progress.jsonl").read_text().splitlines()) == 2
    assert (out / "ckpt" / "u0002" / "discard.pt").is_file()
    assert main(["--out", str(out), "--curve", "--games", "4", "--workers", "1", "--vs", "random"]) == 0
    rows = json.loads((out / "curve.json").read_text())
    assert [r["update"] for r in rows] == [0, 1, 2] and all(r["games"] == 4 for r in rows)
    assert (out / "curve.png").stat().st_size > 1000
    assert main(["--out", str(out), "--curve", "--games", "4", "--workers", "1", "--vs", "random", "--every", "2"]) == 0
    assert [r["update"] for r in json.loads((out / "curve.json").read_text())] == [0, 2]
    assert main(["--out", str(out), "--curve", "--games", "4", "--workers", "1", "--vs", "random", "--every", "3"]) == 0
    assert [r["update"] for r in json.loads((out / "curve.json").read_text())] == [0, 2]  # the last one too


def test_a_run_paid_by_the_hand_records_its_reward_and_moves_the_net(tmp_path):
    from cnn.nets import load_checkpoint

    out = tmp_path / "rl_hand"
    assert main(["--out", str(out), "--games", "4", "--workers", "1", "--updates", "1", "--reward", "hand",
                 "--opponents", "efficiency*1", "--lr", "1e-3", "--seed", "5"]) == 0
    assert json.loads((out / "run.json").read_text())["reward"] == "hand"
    start = load_checkpoint(out / "ckpt" / "u0000" / "discard.pt")
    after = load_checkpoint(out / "ckpt" / "u0001" / "discard.pt")
    assert any(not torch.equal(a, b) for a, b in zip(start.parameters(), after.parameters()))
