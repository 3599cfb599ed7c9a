"""Policy-gradient fine-tuning of cnn-bot (player.reinforce): a tiny run end to end."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from game.errors import MahjongError
from player.reinforce import advantages, main, parse_opponents


def test_advantages_are_the_normalised_game_rewards_of_each_discard():
    games = [{"rank": 1, "kind": np.zeros(3)}, {"rank": 4, "kind": np.zeros(2)}]
    adv = advantages(games)
    assert adv.tolist() == [1.0, 1.0, 1.0, -1.0, -1.0]  # rewards +1.5 / -1.5, mean 0, std 1.5


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
