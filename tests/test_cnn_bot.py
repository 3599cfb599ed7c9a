"""cnn-bot: decision flow, legality in real games, training and agreement end to end."""
from __future__ import annotations

import json
import importlib
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from cnn.encoders import SeatHistory
from cnn.nets import GaoNet, NetConfig, load_checkpoint, save_checkpoint
from cnn.policy import CnnPolicy, load_nets
from cnn.rules import chi_class, isolated_kan
from game.errors import ModelFileError
from game.tiles import hand_counts, mjai_to_kind, parse_hand, to_counts

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
TASKS = ("discard", "pon", "chi", "riichi")


def fixed_net(task: str, bias: list[float]) -> GaoNet:
    """A net whose output ignores its input: logits = ``bias``."""
    net = GaoNet(NetConfig(task=task, in_planes=87 if task in ("pon", "chi") else 86, fc300=False))
    last = net.layers[-1]
    with torch.no_grad():
        last.weight.zero_()
        last.bias.copy_(torch.tensor(bias))
    return net.eval()


def policy(discard=None, pon=0.0, chi=(0.0, -9, -9, -9), riichi=0.0) -> CnnPolicy:
    discard = discard if discard is not None else [0.0] * 34
    return CnnPolicy({
        "discard": fixed_net("discard", discard),
        "pon": fixed_net("pon", [0.0, pon]),
        "chi": fixed_net("chi", list(chi)),
        "riichi": fixed_net("riichi", [0.0, riichi]),
    })


def random_models(folder: Path, features: int = 0) -> Path:
    from cnn.train_bot import net_config

    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    for task in TASKS:
        net = GaoNet(net_config(task, "m86", fc300=True, bn_axis="width", features=features))
        save_checkpoint(net, folder / f"{task}.pt", half=True)
    return folder


def table_state(hand: str, seat: int = 0, last_discard=None):
    from game.state import TableState

    st = TableState(seat)
    ids = parse_hand(hand)
    st.hand_ids = ids
    st.hand = to_counts(ids)
    st.last_discard = last_discard
    return st


def dahai(name: str, tsumogiri: bool = False) -> dict:
    return {"type": "dahai", "actor": 0, "pai": name, "tsumogiri": tsumogiri}


# --- rules ---------------------------------------------------------------------------------

def test_kan_isolation_rule():
    assert isolated_kan(hand_counts("1111m"), 0)
    assert not isolated_kan(hand_counts("1111m3m"), 0)
    assert isolated_kan(hand_counts("1111m4m"), 0)  # 4m is three away
    assert isolated_kan(hand_counts("9999m1p2p"), 8)  # other suits do not count
    assert not isolated_kan(hand_counts("0555s7s"), 22)
    assert isolated_kan(hand_counts("1111z2z34m"), 27)  # honors are always isolated


def test_chi_class_is_the_called_tiles_position():
    chi = {"type": "chi", "actor": 1, "target": 0}
    assert chi_class({**chi, "pai": "3m", "consumed": ["4m", "5m"]}) == 1
    assert chi_class({**chi, "pai": "5mr", "consumed": ["4m", "6m"]}) == 2
    assert chi_class({**chi, "pai": "6m", "consumed": ["4m", "5mr"]}) == 3


# --- decision flow -----------------------------------------------------------------------

def test_masked_discard_is_always_legal_and_follows_the_net():
    st = table_state("123m456p789s11z234m")
    legal = [dahai(n) for n in ("1m", "2m", "3m", "4p", "E")]
    bias = [0.0] * 34
    bias[mjai_to_kind("C")] = 50.0  # the net's favourite is not in hand
    bias[mjai_to_kind("4p")] = 10.0
    got = policy(discard=bias).decide(st, SeatHistory(), legal)
    assert got == dahai("4p")
    rng = np.random.default_rng(0)
    pol = policy()
    for _ in range(30):  # whatever the net prefers, the choice is one of the legal actions
        with torch.no_grad():
            pol.nets["discard"].layers[-1].bias.copy_(torch.from_numpy(rng.normal(0, 5, 34)))
        sub = [legal[i] for i in sorted(rng.choice(len(legal), rng.integers(1, 6), replace=False))]
        assert pol.decide(st, SeatHistory(), sub) in sub


def test_red_five_kept_and_tsumogiri_preferred():
    st = table_state("123m406p789s1122z5p")
    bias = [0.0] * 34
    bias[mjai_to_kind("5p")] = 9.0
    legal = [dahai("5pr"), dahai("5p"), dahai("5p", tsumogiri=True), dahai("E")]
    assert policy(discard=bias).decide(st, SeatHistory(), legal) == dahai("5p", tsumogiri=True)


def test_win_always_and_kans_by_rule():
    st = table_state("1111z234m567p88s9s")
    hora = {"type": "hora", "actor": 0, "target": 0, "pai": "9s"}
    ankan = {"type": "ankan", "actor": 0, "consumed": ["E", "E", "E", "E"]}
    legal = [dahai("9s", True), dahai("E"), ankan, hora]
    assert policy().decide(st, SeatHistory(), legal) == hora
    assert policy().decide(st, SeatHistory(), legal[:3]) == ankan
    st2 = table_state("2222m3m4m567p88s9s")
    kan2 = {"type": "ankan", "actor": 0, "consumed": ["2m"] * 4}
    assert policy().decide(st2, SeatHistory(), [dahai("9s", True), kan2])["type"] == "dahai"
    kakan = {"type": "kakan", "actor": 0, "pai": "E", "consumed": ["E"] * 3}
    assert policy().decide(st2, SeatHistory(), [dahai("9s", True), kakan])["type"] == "dahai"


def test_riichi_and_calls_follow_their_nets():
    st = table_state("123m456p789s1122z")
    reach = {"type": "reach", "actor": 0}
    legal = [dahai("E"), reach]
    assert policy(riichi=5.0).decide(st, SeatHistory(), legal) == reach
    assert policy(riichi=-5.0).decide(st, SeatHistory(), legal) == dahai("E")
    st = table_state("1122z45m67p99s123s", last_discard=(3, parse_hand("3m")[0]))
    pon = {"type": "pon", "actor": 0, "target": 3, "pai": "3m", "consumed": ["3m", "3m"]}
    chi = {"type": "chi", "actor": 0, "target": 3, "pai": "3m", "consumed": ["4m", "5m"]}
    dmk = {"type": "daiminkan", "actor": 0, "target": 3, "pai": "3m", "consumed": ["3m"] * 3}
    none = {"type": "none"}
    calls = [pon, chi, dmk, none]
    assert policy(pon=-3).decide(st, SeatHistory(), calls) == none  # never an open kan
    assert policy(pon=3).decide(st, SeatHistory(), calls) == pon
    assert policy(chi=(0, 5, -9, -9)).decide(st, SeatHistory(), calls) == chi
    # chi class 3 is not legal here, so the mask keeps "no chi"
    assert policy(chi=(0, -9, -9, 5)).decide(st, SeatHistory(), calls) == none
    # both want to call: the more confident net wins
    assert policy(pon=1.0, chi=(0, 5, -9, -9)).decide(st, SeatHistory(), calls) == chi
    assert policy(pon=6.0, chi=(0, 1, -9, -9)).decide(st, SeatHistory(), calls) == pon
    # a net acts only above its own threshold: P(pon) = 0.73 passes 0.5, not 0.8
    pol = policy(pon=1.0)
    assert pol.decide(st, SeatHistory(), [pon, none]) == pon
    pol.nets["pon"].config = replace(pol.nets["pon"].config, threshold=0.8)
    assert pol.decide(st, SeatHistory(), [pon, none]) == none
    # chi: the legal classes together against the threshold (0.45 + 0.45 of "no chi" 0.1)
    chi2 = {**chi, "pai": "6m", "consumed": ["4m", "5m"]}  # the called tile on the right
    pol = policy(chi=(0, 1.5, -9, 1.5))
    pol.nets["chi"].config = replace(pol.nets["chi"].config, threshold=0.85)
    assert pol.decide(st, SeatHistory(), [chi, chi2, none])["type"] == "chi"
    assert pol.decide(st, SeatHistory(), [chi, none]) == none  # 0.45 alone does not pass


def test_bot_thresholds_override_the_checkpoints(tmp_path):
    """``cnn-bot:pon=...`` (any of pon / chi / riichi) replaces the threshold its checkpoint
    holds, for that agent only; an unknown option or one out of (0, 1) is refused."""
    from game.errors import MahjongError
    from player.registry import make_agent

    folder = tmp_path / "m"
    folder.mkdir()
    for task, bias in (("discard", [0.0] * 34), ("pon", [0.0, 1.0]), ("chi", [0.0, -9, -9, -9]), ("riichi", [0.0, 1.0])):
        save_checkpoint(fixed_net(task, bias), folder / f"{task}.pt")  # P(act) = 0.73, threshold 0.5
    st = table_state("1122z45m67p99s123s", last_discard=(3, parse_hand("3m")[0]))
    pon = {"type": "pon", "actor": 0, "target": 3, "pai": "3m", "consumed": ["3m", "3m"]}
    none = {"type": "none"}
    choices = {}
    for spec in ("cnn-bot", "cnn-bot:pon=0.8", "cnn-bot:pon=0.7"):
        bot = make_agent(f"{spec},models_dir={folder}" if ":" in spec else f"{spec}:models_dir={folder}")
        bot.start_game(0)
        bot.state = st
        choices[spec] = bot.act([pon, none])
    assert choices == {"cnn-bot": pon, "cnn-bot:pon=0.8": none, "cnn-bot:pon=0.7": pon}
    with pytest.raises(MahjongError, match="unknown cnn-bot option"):
        make_agent(f"cnn-bot:riichi_threshold=0.5,models_dir={folder}")
    with pytest.raises(MahjongError, match="riichi threshold"):
        make_agent(f"cnn-bot:riichi=1.5,models_dir={folder}")


def test_thresholds_cli_writes_only_the_thresholds(tmp_path, capsys):
    """``python -m cnn.thresholds --set``: the nets then act at the new thresholds, their
    weights bit for bit the same; bad input exits 2 and leaves every file as it was."""
    from cnn import thresholds

    folder = random_models(tmp_path / "m")
    before = {t: torch.load(folder / f"{t}.pt", weights_only=True) for t in TASKS}
    assert thresholds.main(["--models", str(folder), "--set", "pon=0.6", "riichi=0.35", "--why", "dev games"]) == 0
    nets = load_nets(folder)
    assert (nets["pon"].config.threshold, nets["riichi"].config.threshold) == (0.6, 0.35)
    assert nets["chi"].config.threshold == before["chi"]["config"]["threshold"]
    for t in TASKS:
        after = torch.load(folder / f"{t}.pt", weights_only=True)
        assert all(torch.equal(after["state_dict"][k], v) for k, v in before[t]["state_dict"].items())
    assert "riichi  0.3500  chosen by games (dev games)" in capsys.readouterr().out
    written = {t: (folder / f"{t}.pt").read_bytes() for t in TASKS}
    for bad in (["--set", "pon=1.5", "--why", "x"], ["--set", "kan=0.5", "--why", "x"],
                ["--set", "pon=0.5"], ["--set", "pon=0.5", "pon=0.6", "--why", "x"]):
        assert thresholds.main(["--models", str(folder), *bad]) == 2
        assert "error:" in capsys.readouterr().err
    (folder / "chi.pt").unlink()
    assert thresholds.main(["--models", str(folder), "--set", "pon=0.5", "--why", "x"]) == 2
    assert "chi.pt" in capsys.readouterr().err
    assert all((folder / f"{t}.pt").read_bytes() == written[t] for t in TASKS if t != "chi")


def test_missing_or_mismatched_weights_name_the_file(tmp_path):
    folder = random_models(tmp_path / "m")
    (folder / "chi.pt").unlink()
    with pytest.raises(ModelFileError, match="chi.pt"):
        load_nets(folder)
    save_checkpoint(GaoNet(NetConfig(task="pon", in_planes=87)), folder / "chi.pt")
    with pytest.raises(ModelFileError, match="chi.pt"):
        load_nets(folder)


def test_shipped_default_weights_load():
    nets = load_nets()
    assert set(nets) == set(TASKS)
    # the shipped nets read feature set 2 (m86 + 10 + 9 / m86 + offer + 25 + 9 planes) and
    # each act threshold says how it was chosen: chi's on held-out games at the teacher's
    # rate, pon's and riichi's by strength in games (cnn.thresholds, cnn/README.md)
    assert nets["discard"].config.in_planes == 105 and nets["pon"].config.in_planes == 121
    assert all(net.config.features == 2 for net in nets.values())
    from cnn.policy import DEFAULT_MODELS

    meta = {t: torch.load(DEFAULT_MODELS / f"{t}.pt", weights_only=True)["meta"] for t in ("pon", "chi", "riichi")}
    assert {t: m["threshold_rule"] for t, m in meta.items()} == {"pon": "games", "chi": "rate", "riichi": "games"}
    assert all("cnn/README.md" in meta[t]["threshold_why"] for t in ("pon", "riichi"))
    assert (nets["pon"].config.threshold, nets["riichi"].config.threshold) == (0.6, 0.35)
    assert 0.5 < nets["chi"].config.threshold < 1.0


# --- real games ---------------------------------------------------------------------------

class Checked:
    """Wraps an agent and checks every answer against the legal actions and the rules."""

    def __init__(self, agent):
        self.agent, self.name, self.calls = agent, agent.name, 0

    def start_game(self, seat):
        self.agent.start_game(seat)

    def observe(self, event):
        self.agent.observe(event)

    def act(self, legal):
        choice = self.agent.act(legal)
        assert choice in legal
        if any(a["type"] == "hora" for a in legal):
            assert choice["type"] == "hora"
        assert choice["type"] not in ("daiminkan", "kakan")
        if choice["type"] == "ankan":
            assert isolated_kan(self.agent.state.hand, mjai_to_kind(choice["consumed"][0]))
        self.calls += 1
        return choice


@pytest.mark.parametrize("features", [0, 1, 2, 3])
def test_bot_plays_full_games_with_only_legal_actions(features, tmp_path):
    from game.match import play_game
    from player.registry import make_agent

    models = random_models(tmp_path / "m", features=features) if features else None
    bots = [Checked(make_agent("cnn-bot", models_dir=models)) for _ in range(2)]
    if features:  # the feature nets read their task's feature planes
        policy = bots[0].agent.policy
        assert policy.features and policy.safety == (features >= 2)
        assert len(policy.chans["pon"]) == 87 + 25 + 9 * (features >= 2) + 6 * (features == 3)
        assert len(policy.chans["discard"]) == 86 + 10 + 9 * (features >= 2) + 6 * (features == 3)
    others = [make_agent("random", seed=s) for s in range(2)]
    result = play_game([bots[0], others[0], bots[1], others[1]], seed=11)
    assert result.names == ["cnn-bot", "random", "cnn-bot", "random"]
    assert sorted(result.ranks) == [1, 2, 3, 4]
    assert bots[0].calls > 20 and bots[1].calls > 20
    assert result.events[-1]["type"] == "end_game"


# --- training and agreement -----------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_records(tmp_path_factory):
    """Two self-play games written as mjai JSONL."""
    from game.match import play_game
    from player.registry import make_agent

    folder = tmp_path_factory.mktemp("records")
    for seed in (3, 4):
        result = play_game([make_agent("random", seed=seed * 10 + s) for s in range(4)], seed=seed)
        with (folder / f"game{seed}.mjson").open("w") as fh:
            for ev in result.events:
                fh.write(json.dumps(ev) + "\n")
    return folder


def run_module(module: str, *args: str, capsys) -> SimpleNamespace:
    """Run a CLI's ``main`` in this process (no interpreter start-up per call)."""
    main = importlib.import_module(module).main
    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    return SimpleNamespace(returncode=code, stdout=out.out, stderr=out.err)


def test_train_bot_tiny_end_to_end(tiny_records, tmp_path, capsys):
    out = tmp_path / "run"
    proc = run_module("cnn.train_bot", "--records", str(tiny_records / "*.mjson"), "--model", "m56",
                      "--out", str(out), "--epochs", "1", "--max-steps", "2", "--batch", "64",
                      "--tasks", "discard,pon", "--quiet", "--half", "--augment-suits", capsys=capsys)
    assert proc.returncode == 0, proc.stderr
    assert "discard epoch 1" in proc.stdout and "val_acc" in proc.stdout
    net = load_checkpoint(out / "discard.pt", task="discard")
    assert net.config.model == "m56" and net.config.in_planes == 56
    assert load_checkpoint(out / "pon.pt").config.in_planes == 57
    data = np.load(out / "dataset.npz")
    assert data["discard_x"].shape[1] == 129 * 34 * 4 // 8 and len(data["discard_y"]) > 100
    assert (data["discard_y"] < 34).all()
    # every label is one of the legal discards
    assert data["discard_mask"][np.arange(len(data["discard_y"])), data["discard_y"]].all()
    mtime = (out / "dataset.npz").stat().st_mtime_ns
    proc = run_module("cnn.train_bot", "--records", str(tiny_records / "*.mjson"), "--model", "m56",
                      "--out", str(out), "--epochs", "1", "--max-steps", "1", "--tasks", "riichi",
                      "--quiet", capsys=capsys)
    assert proc.returncode == 0, proc.stderr
    assert (out / "dataset.npz").stat().st_mtime_ns == mtime  # reused, not rebuilt


def test_widened_net_reads_the_new_planes_at_weight_zero(tmp_path, capsys):
    """A set-2 net widened to set 3 gives the same outputs as before on any planes (the score
    planes start at weight 0); train_bot --init widens the nets of a smaller set, and its first
    steps move the new planes' weights off zero."""
    from cnn.nets import widen_inputs
    from cnn.policy import input_channels
    from cnn.splits import split_heldout
    from cnn.train_bot import net_config

    narrow = load_checkpoint(random_models(tmp_path / "m2", features=2) / "discard.pt")
    wide = widen_inputs(narrow, net_config("discard", "m86", fc300=True, bn_axis="width", features=3))
    assert input_channels(wide) == input_channels(narrow) + list(range(123, 129))
    x = torch.rand(16, wide.config.in_planes, 34, 4)
    with torch.no_grad():
        assert torch.equal(wide(x), narrow(x[:, :narrow.config.in_planes]))
    with pytest.raises(ValueError):
        widen_inputs(wide, narrow.config)
    # a phoenix game that is trained on (the random players' scores hardly move)
    game = split_heldout(sorted((DATA / "phoenix" / "mjlog").glob("*.xml")))[0][0]
    out = tmp_path / "run"
    proc = run_module("cnn.train_bot", "--records", str(game), "--features", "3",
                      "--init", str(tmp_path / "m2"), "--out", str(out), "--epochs", "1", "--max-steps", "3",
                      "--tasks", "discard", "--quiet", "--dropout", "0.1", capsys=capsys)
    assert proc.returncode == 0, proc.stderr
    assert "widened from feature set 2 to 3 (the 6 new planes start at weight 0)" in proc.stdout
    trained = load_checkpoint(out / "discard.pt")
    assert trained.config.features == 3
    assert trained.config.dropout == 0.1 and narrow.config.dropout == 0.5  # training's rate, not the start's
    assert trained.state_dict()["layers.0.weight"][:, narrow.config.in_planes:].abs().sum() > 0


def test_players_keeps_only_the_named_seats(tmp_path):
    from cnn.bot_data import build_dataset
    from game.decisions import iter_decisions
    from game.match import play_game
    from player.registry import make_agent

    agents = [make_agent("efficiency")] + [make_agent("random", seed=s) for s in range(3)]
    result = play_game(agents, seed=5)
    events = [{**result.events[0], "names": result.names}] + result.events[1:]  # as evaluate logs
    path = tmp_path / "g.mjson"
    path.write_text("".join(json.dumps(ev) + "\n" for ev in events))
    data = build_dataset([path], players=frozenset({"efficiency"}), progress=False)
    own = [d for d in iter_decisions(result.events, seats=[0])
           if d.chosen["type"] == "dahai" and len(d.legal) >= 2]
    assert len(data["discard_y"]) == len(own) > 20
    assert data["discard_y"].tolist() == [mjai_to_kind(d.chosen["pai"]) for d in own]
    everyone = build_dataset([path], progress=False)
    assert len(everyone["discard_y"]) > 2 * len(own)
    # a game where no named seat plays counts whole (real players' records)
    nobody = build_dataset([path], players=frozenset({"mdp"}), progress=False)
    assert len(nobody["discard_y"]) == len(everyone["discard_y"])


def test_train_bot_bad_input_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.mjson"
    bad.write_text('{"type": "start_game"}\n{not json\n')
    proc = run_module("cnn.train_bot", "--records", str(bad), "--out", str(tmp_path / "o"), "--quiet",
                      capsys=capsys)
    assert proc.returncode == 2
    assert "bad.mjson" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_module("cnn.train_bot", "--records", str(tmp_path / "none*.xml"), "--out", str(tmp_path), capsys=capsys)
    assert proc.returncode == 2


def test_extra_dataset_of_other_planes_is_named_and_exits_2(tiny_records, tmp_path, capsys):
    """An ``--extra-dataset`` packed before the planes changed (123 planes, 2,091 bytes a
    sample) is refused with its name, not concatenated or read with zero planes."""
    out = tmp_path / "run"
    args = ["--records", str(tiny_records / "*.mjson"), "--out", str(out), "--epochs", "1", "--max-steps", "1",
            "--tasks", "discard", "--quiet"]
    assert run_module("cnn.train_bot", *args, capsys=capsys).returncode == 0
    data = dict(np.load(out / "dataset.npz"))
    old = {k: (v[:, :2091] if k.endswith("_x") else v) for k, v in data.items()}
    np.savez(tmp_path / "old.npz", **old)
    proc = run_module("cnn.train_bot", *args, "--extra-dataset", str(tmp_path / "old.npz"), capsys=capsys)
    assert proc.returncode == 2
    assert "old.npz" in proc.stderr and "2091" in proc.stderr and "Traceback" not in proc.stderr


def test_agreement_json_keys_and_values(tiny_records, tmp_path, capsys):
    models = random_models(tmp_path / "models")
    phoenix = DATA / "phoenix" / "mjlog" / "gimite__test.xml"  # a real Tenhou game too
    records = f"{tiny_records / '*.mjson'},{phoenix}"
    proc = run_module("cnn.agreement", "--records", records, "--models", str(models), "--json",
                      capsys=capsys)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    for key in ("discard_top1", "discard_top2", "discard_top3", "pon_accuracy", "chi_accuracy",
                "riichi_accuracy", "decisions", "pon_precision", "pon_recall", "kan_accuracy"):
        assert key in res
    assert 0 <= res["discard_top1"] <= res["discard_top2"] <= res["discard_top3"] <= 1
    assert res["decisions"] > 100


def test_heldout_phoenix_games_are_named_and_never_trained_on(tiny_records, tmp_path, capsys):
    from cnn.splits import HELDOUT_PHOENIX

    models = random_models(tmp_path / "models", features=True)
    proc = run_module("cnn.agreement", "--heldout", "--models", str(models), "--json", capsys=capsys)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert sorted(res["games"]) == sorted(HELDOUT_PHOENIX) and len(res["games"]) == 14
    assert res["discard_n"] > 3000 and res["pon_n"] > 100
    held = DATA / "phoenix" / "mjlog" / "gimite__test.xml"
    out = tmp_path / "run"
    proc = run_module("cnn.train_bot", "--records", f"{tiny_records / '*.mjson'},{held}", "--out", str(out),
                      "--epochs", "1", "--max-steps", "1", "--tasks", "riichi", "--quiet", capsys=capsys)
    assert proc.returncode == 0, proc.stderr
    assert "1 held-out phoenix files left out" in proc.stdout
    assert len(json.loads((out / "summary.json").read_text())) == 1
    meta = np.load(out / "dataset.npz")["meta"]
    assert "gimite" not in str(meta)


def test_thesis_sampling_rules(monkeypatch):
    """One followed seat per hand, stop after its riichi, skip hands it lost > 1,500 in."""
    import game.decisions
    from cnn import bot_data
    from game.decisions import Decision

    events = [
        {"type": "start_kyoku", "bakaze": "E", "kyoku": 1, "honba": 0, "scores": [25000] * 4},
        {"type": "start_kyoku", "bakaze": "E", "kyoku": 2, "honba": 0,
         "scores": [23000, 27000, 25000, 25000]},
        {"type": "start_kyoku", "bakaze": "E", "kyoku": 3, "honba": 0,
         "scores": [23000, 27000, 25000, 25000]},
        {"type": "hora", "actor": 1, "target": 0, "deltas": [-1000, 1000, 0, 0]},
        {"type": "end_game"},
    ]
    assert bot_data.hand_deltas(events) == {(0, 0, 0): [-2000, 2000, 0, 0],
                                             (0, 1, 0): [0, 0, 0, 0],
                                             (0, 2, 0): [-1000, 1000, 0, 0]}
    from test_cnn_encoders import make_state

    def decisions(_events, seats=None):
        for kyoku in range(3):
            for seat in range(4):
                for turn in range(3):
                    st = make_state(seat=seat, kyoku=kyoku, turns=[turn] * 4)
                    legal = [dahai("1m"), dahai("2m"), {"type": "reach", "actor": seat}]
                    chosen = legal[2] if turn == 1 else legal[0]
                    yield Decision(seat, st, legal, chosen, 0)

    monkeypatch.setattr(game.decisions, "iter_decisions", decisions)
    monkeypatch.setattr(bot_data, "_followed_seats", lambda ev, seed: {
        (0, 0, 0): 0, (0, 1, 0): 1, (0, 2, 0): 0})
    store = bot_data.SampleArrays()
    bot_data.add_game(store, events, 0, thesis=True, seed=0)
    # E1: seat 0 lost 2,000 -> skipped; E2, E3: the followed seat's turns 0 and 1 (riichi)
    assert len(store.y["riichi"]) == 4 and store.y["riichi"] == [0, 1, 0, 1]
    assert len(store.y["discard"]) == 2
    store = bot_data.SampleArrays()
    bot_data.add_game(store, events, 0, thesis=False, seed=0)
    assert len(store.y["riichi"]) == 36 and len(store.y["discard"]) == 24


def test_agreement_dataset_cache_and_bad_input(tiny_records, tmp_path, capsys, monkeypatch):
    from cnn import bot_data

    models = random_models(tmp_path / "models")
    records = str(tiny_records / "*.mjson")
    base = ["--records", records, "--models", str(models), "--json", "--dataset"]
    # --dataset X is written as X.npz and found again there (not rebuilt).
    proc = run_module("cnn.agreement", *base, str(tmp_path / "ds"), capsys=capsys)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "ds.npz").is_file() and not (tmp_path / "ds").exists()
    built = bot_data.build_dataset

    def no_build(*args, **kwargs):
        raise AssertionError("the cache was not used")
    monkeypatch.setattr(bot_data, "build_dataset", no_build)
    again = run_module("cnn.agreement", *base, str(tmp_path / "ds"), capsys=capsys)
    assert again.returncode == 0 and again.stdout == proc.stdout
    # A cut cache is rebuilt, with one warning line.
    monkeypatch.setattr(bot_data, "build_dataset", built)
    cache = tmp_path / "ds.npz"
    cache.write_bytes(cache.read_bytes()[:1000])
    cut = run_module("cnn.agreement", *base, str(cache), capsys=capsys)
    assert cut.returncode == 0 and cut.stdout == proc.stdout
    assert cut.stderr.strip().splitlines() == [
        f"warning: {cache}: unreadable .npz (BadZipFile: File is not a zip file); 1 unreadable cache rebuilt"]
    # --dataset naming a directory, and records without a hand: exit 2, one line.
    (tmp_path / "dir.npz").mkdir()
    bad = run_module("cnn.agreement", *base, str(tmp_path / "dir"), capsys=capsys)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'dir.npz'}: --dataset names a directory, not an .npz file"]
    handless = tmp_path / "handless.mjson"
    handless.write_text('{"type":"start_game","names":["a","b","c","d"]}\n{"type":"end_game"}\n')
    empty = run_module("cnn.agreement", "--records", str(handless), "--models", str(models), "--json",
                       capsys=capsys)
    assert empty.returncode == 2 and empty.stdout == ""
    assert empty.stderr.strip().splitlines() == [
        f"error: {handless}: the record holds no hand (no start_kyoku event)"]


def test_thresholds_chosen_on_held_out_scores():
    from cnn.train_bot import choose_threshold

    rng = np.random.default_rng(0)
    acted = rng.random(2000) < 0.1
    p = np.clip(np.where(acted, 0.7, 0.4) + rng.normal(0, 0.2, 2000), 0, 1)
    t_rate = choose_threshold(p, acted, "rate")
    assert abs((p > t_rate).mean() - acted.mean()) < 0.002  # acts as often as the records
    t_acc = choose_threshold(p, acted, "accuracy")
    best = max(((p > c) == acted).mean() for c in np.linspace(0, 1, 1001))
    assert ((p > t_acc) == acted).mean() >= best - 1e-9
    assert choose_threshold(p, np.zeros(2000, bool)) == 0.5  # nothing to choose on


def test_suit_exchange_moves_the_discard_label_with_the_planes():
    """--augment-suits: with the suits reordered, the label's new row holds the discarded
    kind's planes, legal discards stay legal, honors stay, and the identity changes nothing."""
    import itertools

    from cnn.encoders import suit_rows

    rng = np.random.default_rng(3)
    planes = rng.integers(0, 2, size=(5, 34, 4), dtype=np.uint8)
    mask = rng.random(34) < 0.4
    label = int(np.flatnonzero(mask)[0])
    for perm in itertools.permutations(range(3)):
        rows, new_row = suit_rows(np.array(perm))
        moved = planes[:, rows]
        assert (moved[:, new_row[label]] == planes[:, label]).all()
        assert mask[rows][new_row[label]] and mask[rows].sum() == mask.sum()
        for s in range(3):  # new suit s is old suit perm[s]
            assert (moved[:, 9 * s:9 * s + 9] == planes[:, 9 * perm[s]:9 * perm[s] + 9]).all()
        assert (moved[:, 27:] == planes[:, 27:]).all()
    rows, new_row = suit_rows(np.arange(3))
    assert rows.tolist() == list(range(34)) == new_row.tolist()


def test_suit_views_average_is_the_same_for_every_order_of_the_suits():
    """``cnn-bot:views=6``: the nets averaged over the six orders of the suits answer a
    situation with its suits exchanged by the same answer, its discards exchanged alike;
    one view is the plain net."""
    from cnn.encoders import N_PLANES, suit_rows
    from cnn.policy import CnnPolicy, load_nets
    from game.errors import MahjongError

    nets = load_nets()
    plain, views = CnnPolicy(nets), CnnPolicy(nets, views=6)
    rng = np.random.default_rng(5)
    planes = (rng.random((N_PLANES, 34, 4)) < 0.15).astype(np.float32)
    rows, _ = suit_rows(np.array([2, 0, 1]))
    for task in ("discard", "riichi", "chi"):
        p, q = views.probs(task, planes), views.probs(task, planes[:, rows])
        assert abs(p.sum() - 1.0) < 1e-5
        np.testing.assert_allclose(q, p[rows] if task == "discard" else p, atol=1e-5)
    assert not np.allclose(plain.probs("discard", planes[:, rows]), plain.probs("discard", planes)[rows], atol=1e-5)
    np.testing.assert_array_equal(CnnPolicy(nets, views=1).probs("discard", planes), plain.probs("discard", planes))
    with pytest.raises(MahjongError, match="views"):
        CnnPolicy(nets, views=7)


def test_folded_nets_play_as_the_nets_do():
    """``FoldedNet`` (dropout gone, batch norms folded) gives the eval-mode net's logits on the
    planes of a real phoenix game for every shipped net, and on random nets of the other
    layouts (per-filter norm, no dense layer) with non-trivial norm statistics, a batch at a
    time and one position at a time (the player's path: the first convolution over the
    non-zero inputs, the others as matrix products); the policy folds a net again when it is
    replaced."""
    from cnn.nets import FoldedNet
    from game.decisions import iter_decisions
    from game.records import read_events

    game = DATA / "phoenix" / "mjlog" / "mjx__2010091009gm-00a9-0000-83af2648.xml"
    nets = load_nets()
    pol = CnnPolicy(nets)
    hist = [SeatHistory() for _ in range(4)]
    planes = [hist[d.seat].encode(d.state, discard_decision=True, offered=None)
              for d in iter_decisions(read_events(game)) if any(a["type"] == "dahai" for a in d.legal)]
    batch = np.stack(planes[::4])
    assert len(batch) >= 30
    for task, net in nets.items():
        x = torch.from_numpy(np.ascontiguousarray(batch[:, pol.chans[task]], dtype=np.float32))
        with torch.no_grad():
            ref = net.eval()(x)
        folded = FoldedNet(net)
        np.testing.assert_allclose(folded(x).numpy(), ref.numpy(), rtol=1e-4, atol=1e-4 * float(ref.abs().max()))
        one = np.concatenate([folded(x[i:i + 1]).numpy() for i in range(len(x))])
        np.testing.assert_allclose(one, ref.numpy(), rtol=1e-4, atol=1e-4 * float(ref.abs().max()))
        np.testing.assert_allclose(pol.probs(task, batch), torch.softmax(ref, 1).numpy(), atol=1e-5)
        np.testing.assert_allclose(pol.probs(task, batch[3]), torch.softmax(ref, 1).numpy()[3], atol=1e-5)
    torch.manual_seed(3)
    for cfg in (NetConfig(bn_axis="channel"), NetConfig(task="chi", fc300=False), NetConfig(bn_axis="channel", fc300=False)):
        net = GaoNet(cfg)
        for m in net.modules():
            if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
                for t, lo, hi in ((m.running_mean, -1, 1), (m.running_var, 0.3, 3), (m.weight, 0.5, 1.5), (m.bias, -1, 1)):
                    t.data.uniform_(lo, hi)
        x = torch.from_numpy(np.ascontiguousarray(batch[:, :cfg.in_planes], dtype=np.float32))
        x[:, 0] = torch.rand(x[:, 0].shape) * (torch.rand(x[:, 0].shape) < 0.3)  # not only 0 / 1
        with torch.no_grad():
            ref = net.eval()(x).numpy()
            np.testing.assert_allclose(FoldedNet(net)(x).numpy(), ref, atol=1e-4)
            np.testing.assert_allclose(np.concatenate([FoldedNet(net)(x[i:i + 1]).numpy() for i in range(5)]),
                                       ref[:5], atol=1e-4)
    pol.probs("discard", batch[0])  # folded once
    fresh = GaoNet(nets["discard"].config).eval()
    pol.nets["discard"] = fresh
    x = torch.from_numpy(np.ascontiguousarray(batch[:1, pol.chans["discard"]], dtype=np.float32))
    with torch.no_grad():
        np.testing.assert_allclose(pol.probs("discard", batch[0]), torch.softmax(fresh(x), 1).numpy()[0], atol=1e-5)
