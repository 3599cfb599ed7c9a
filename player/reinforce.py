"""Policy-gradient fine-tuning of cnn-bot's discard net in self-play (issue 10, item 3).

    python -m player.reinforce --init cnn/models --out runs/rl --updates 40 --games 128 --workers 2
    python -m player.reinforce --out runs/rl_hand --reward hand      # each hand's own reward
    python -m player.reinforce --out runs/rl --resume            # continue a stopped run
    python -m player.reinforce --out runs/rl --curve --games 400 # the learning curve (PNG)

REINFORCE with a baseline, as in Zhao's thesis (``specs/zhao.md`` §5: Monte-Carlo policy
gradient on the discard model, returns normalised over the batch), taken to four players and
whole east-only games: the reward of every discard the learner made in a game is the game's
final rank (``2.5 - rank``), the baseline and scale are the mean and standard deviation of
the learner's rewards in the update's games. With ``--reward hand`` every discard is paid by
its own hand instead: the fall of the learner's expected final rank over that hand (Eq. 1's
final-rank model, the shipped one, from the hand's ``start_kyoku`` to the next one, or to the
exact final rank after the last hand), the rank model standing in as the critic, so a
discard no longer carries the luck of the game's other hands; baseline and scale are then
those of the update's hands. Each update plays ``--games`` games in blocks of
four seat rotations over one wall; each block's three opponents are drawn from
``--opponents`` (weighted agent specs: the rule-based agent, the MDP player, the supervised
start). The learner samples its discards from the net's softmax over the legal kinds (its
calls and riichi stay the nets' thresholded choices); one Adam step follows each update, with
the net in eval mode (dropout off, batch-norm statistics fixed).

Files in ``--out``: ``run.json`` (the options), ``state.pt`` (net, optimiser and update
count: ``--resume`` continues from it), ``progress.jsonl`` (one line an update: the learner's
mean rank, its rates, the loss), ``ckpt/uNNNN/`` (the four nets every ``--checkpoint-every``
updates, loadable as ``cnn-bot:models_dir=...``) and, with ``--curve``, ``curve/`` (each
checkpoint against three ``--vs`` agents on the same walls) and ``curve.png``.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch

from game.cli import pyplot, reports_errors, save_figure
from game.errors import MahjongError
from player.rundir import check_seed, write_json
from player.selfplay import check_agent_name, derive_seed, get_agent, run_pool

RL_WALLS = 2  # a wall stream of its own: never evaluate's nor self-play's walls
DEFAULT_OPPONENTS = "efficiency*3;mdp*1;cnn-bot*1"
#: What pays a discard: its game's final rank, or the change of expected final rank over its hand.
REWARDS = ("game", "hand")
HandKey = tuple[int, int, int]  # (round wind, kyoku, honba), 0-based as in the table state


def parse_opponents(text: str) -> tuple[list[str], np.ndarray]:
    """``"spec*weight;spec*weight"`` -> agent specs and their probabilities."""
    specs, weights = [], []
    for part in (p.strip() for p in text.split(";") if p.strip()):
        spec, _, w = part.rpartition("*") if "*" in part else (part, "", "1")
        try:
            weight = float(w)
        except ValueError:
            raise MahjongError(f"--opponents: {part!r} has a weight that is not a number") from None
        if weight <= 0:
            raise MahjongError(f"--opponents: {part!r} needs a positive weight")
        check_agent_name(spec)
        specs.append(spec)
        weights.append(weight)
    if not specs:
        raise MahjongError("--opponents names no agent")
    w = np.asarray(weights)
    return specs, w / w.sum()


# ----------------------------------------------------------------------------- self-play


def hand_rewards(events: list[dict], seat: int, final_scores: list[int], rank_model,
                 hanchan: bool = False) -> dict[HandKey, float]:
    """Each hand's fall of ``seat``'s expected final rank: minus Eq. 1's expected rank at the
    hand's ``start_kyoku`` less the same at the next one (the exact rank after the last)."""
    from player.audit import hand_value

    starts = [e for e in events if e["type"] == "start_kyoku"]
    # each hand's start valued once: it ends the hand before it; None stands for the final scores
    values = [hand_value(rank_model, seat, start, final_scores, hanchan) for start in [*starts, None]]
    return {("ESWN".index(start["bakaze"]), start["kyoku"] - 1, start["honba"]): values[k + 1] - values[k]
            for k, start in enumerate(starts)}


def _units(result, seat: int, hands: list[HandKey], reward: str, rank_model) -> tuple[np.ndarray, np.ndarray]:
    """The units that pay the discards (the game, or each hand): each discard's unit and the
    units' rewards."""
    if reward == "game":
        return np.zeros(len(hands), dtype=np.int64), np.array([2.5 - result.ranks[seat]])
    paid = hand_rewards(result.events, seat, result.scores, rank_model, result.hanchan)
    unit_of = {key: i for i, key in enumerate(paid)}
    return np.array([unit_of[h] for h in hands], dtype=np.int64), np.array(list(paid.values()))


def _block_task(task: tuple) -> list[dict]:
    """Four games on one wall, the learner in seat 0..3; its discards, the units that pay
    them and the ranks."""
    from cnn.bot_data import PLANE_BITS
    from game.match import play_game
    from player.agents.cnn_bot import CnnBot
    from regressors.estimators import load_default

    width = (PLANE_BITS + 7) // 8  # bytes of one packed sample
    wall, opponents, models, agent_seed, reward = task
    rank_model = load_default("final_rank") if reward == "hand" else None
    learner = CnnBot(models_dir=models)
    out = []
    for seat in range(4):
        learner.policy.sampler = np.random.default_rng(derive_seed(agent_seed, seat))
        learner.policy.trace = []
        agents = [learner if s == seat else
                  get_agent(opponents[(s - seat) % 4 - 1], s, derive_seed(agent_seed, seat, s))
                  for s in range(4)]
        result = play_game(agents, wall)
        trace = learner.policy.trace
        unit, unit_reward = _units(result, seat, [t[3] for t in trace], reward, rank_model)
        out.append({
            "rank": int(result.ranks[seat]),
            "x": np.array([t[0] for t in trace], dtype=np.uint8).reshape(len(trace), width),
            "mask": np.array([t[1] for t in trace], dtype=bool).reshape(-1, 34),
            "kind": np.array([t[2] for t in trace], dtype=np.int64),
            "unit": unit, "unit_reward": unit_reward,
        })
    return out


def play_update(update: int, args, specs: list[str], probs: np.ndarray, models: Path) -> list[dict]:
    rng = np.random.default_rng(derive_seed(args.seed, update, 7, stream=RL_WALLS))
    tasks = []
    for b in range(args.games // 4):
        wall = derive_seed(args.seed, update, b, stream=RL_WALLS)
        opponents = tuple(specs[i] for i in rng.choice(len(specs), 3, p=probs))
        tasks.append((wall, opponents, str(models), derive_seed(args.seed, update, b, 1), args.reward))
    games = []
    for block in run_pool(_block_task, tasks, args.workers, desc=f"update {update + 1}",
                          unit="block"):
        games += block
    return games


# ----------------------------------------------------------------------------- the update


def policy_loss(net, x_packed: np.ndarray, mask: np.ndarray, kind: np.ndarray, adv: np.ndarray,
                chans: list[int], batch: int = 512) -> float:
    """Accumulate the gradient of ``-mean(adv * log pi(kind | x))`` (pi over the legal kinds)."""
    from cnn.bot_data import unpack

    n = len(kind)
    total = 0.0
    for i in range(0, n, batch):
        sl = slice(i, i + batch)
        logits = net(torch.from_numpy(unpack(x_packed[sl], chans)))
        logits = logits.masked_fill(~torch.from_numpy(mask[sl]), -1e4)
        logp = torch.log_softmax(logits, 1).gather(1, torch.from_numpy(kind[sl])[:, None])[:, 0]
        loss = -(torch.from_numpy(adv[sl]).float() * logp).sum() / n
        loss.backward()
        total += loss.item()
    return total


def advantages(games: list[dict]) -> np.ndarray:
    """Per discard: the reward of its unit (its game's ``2.5 - rank``, or its hand's fall of
    expected rank) less the mean over the update's units, over their std."""
    rewards = np.concatenate([g["unit_reward"] for g in games]).astype(np.float64)
    scale = rewards.std() or 1.0
    norm = (rewards - rewards.mean()) / scale
    first = np.cumsum([0] + [len(g["unit_reward"]) for g in games])
    return np.concatenate([norm[first[i] + g["unit"]] for i, g in enumerate(games)])


def _save_nets(net, init: Path, folder: Path) -> None:
    """``folder``: the learner's discard net and the starting folder's other nets."""
    from cnn.policy import save_nets

    save_nets(net, "discard", folder, init, meta={"reinforce": str(folder)}, half=True)


def train(args) -> None:
    from cnn.nets import load_checkpoint
    from cnn.policy import input_channels

    out = Path(args.out)
    state_path = out / "state.pt"
    if args.resume:
        if not state_path.is_file():
            raise MahjongError(f"{state_path}: nothing to resume (no state.pt)")
        run = json.loads((out / "run.json").read_text())
        for key in ("init", "games", "opponents", "lr", "seed", "checkpoint_every"):
            setattr(args, key, run[key])
        args.reward = run.get("reward", "game")  # runs before --reward were paid by the game
    elif state_path.exists():
        raise MahjongError(f"{out} holds a run already; pass --resume or choose another --out")
    init = Path(args.init)
    specs, probs = parse_opponents(args.opponents)
    net = load_checkpoint(init / "discard.pt", task="discard")
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    start = 0
    if args.resume:
        blob = torch.load(state_path, weights_only=True)
        net.load_state_dict(blob["net"])
        opt.load_state_dict(blob["opt"])
        start = int(blob["update"])
    else:
        out.mkdir(parents=True, exist_ok=True)
        write_json(out / "run.json", {k: getattr(args, k) for k in
                                      ("init", "games", "opponents", "lr", "seed", "checkpoint_every",
                                       "reward")})
        _save_nets(net, init, out / "ckpt" / "u0000")
    chans = input_channels(net)
    for update in range(start, args.updates):
        current = out / "current"
        _save_nets(net, init, current)
        games = play_update(update, args, specs, probs, current)
        x = np.concatenate([g["x"] for g in games])
        mask = np.concatenate([g["mask"] for g in games])
        kind = np.concatenate([g["kind"] for g in games])
        adv = advantages(games)
        net.eval()  # dropout off, batch-norm statistics fixed: the policy that played
        opt.zero_grad()
        loss = policy_loss(net, x, mask, kind, adv, chans)
        torch.nn.utils.clip_grad_norm_(net.parameters(), args.clip)
        opt.step()
        ranks = np.array([g["rank"] for g in games])
        line = {"update": update + 1, "games": len(games), "mean_rank": float(ranks.mean()),
                "se": float(ranks.std(ddof=1) / np.sqrt(len(ranks))), "discards": int(len(kind)),
                "loss": loss, "rank_rates": [float((ranks == r).mean()) for r in (1, 2, 3, 4)]}
        with (out / "progress.jsonl").open("a") as f:
            f.write(json.dumps(line) + "\n")
        print(f"update {update + 1}: learner mean rank {line['mean_rank']:.3f} +- {line['se']:.3f} "
              f"({len(games)} games, {len(kind)} discards), loss {loss:+.4f}", flush=True)
        if (update + 1) % args.checkpoint_every == 0 or update + 1 == args.updates:
            _save_nets(net, init, out / "ckpt" / f"u{update + 1:04d}")
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "update": update + 1}, state_path)


# ----------------------------------------------------------------------------- learning curve


def learning_curve(out: Path, vs: str, games: int, seed: int, workers: int | None, every: int = 1) -> list[dict]:
    """Every checkpoint (each ``every``-th update's, and the last) against three ``vs`` on the
    same walls; ``curve.png`` and the rows."""
    from player.evaluate import evaluate

    rows = []
    ckpts = sorted((p for p in (out / "ckpt").glob("u*") if p.name[1:].isdigit()), key=lambda p: int(p.name[1:]))
    for ckpt in ckpts:
        if int(ckpt.name[1:]) % every and ckpt != ckpts[-1]:
            continue
        summary = evaluate(f"cnn-bot:models_dir={ckpt}", vs, games, out / "curve" / ckpt.name,
                           seed=seed, workers=workers, resume=True)
        player = summary["player_stats"]
        se = player["mean_rank_se"]
        rows.append({"update": int(ckpt.name[1:]), "mean_rank": player["mean_rank"],
                     "se": se if se is not None and np.isfinite(se) else None, "games": summary["games"],
                     "call_rate": player["call_rate"], "win_rate": player["win_rate"],
                     "deal_in_rate": player["deal_in_rate"]})
        print(f"{ckpt.name}: mean rank {player['mean_rank']:.3f} +- {se:.3f}", flush=True)
    write_json(out / "curve.json", rows)
    _plot_curve(rows, out / "curve.png", vs)
    return rows


def _plot_curve(rows: list[dict], path: Path, vs: str) -> None:
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(6, 3.5))
    u = [r["update"] for r in rows]
    m = np.array([r["mean_rank"] for r in rows])
    se = np.array([np.nan if r["se"] is None else r["se"] for r in rows])
    ax.errorbar(u, m, yerr=se, marker="o", capsize=3)
    ax.axhline(2.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("checkpoint (update, or training step)")
    ax.set_ylabel(f"mean rank vs 3 {vs} (+- SE)")
    ax.invert_yaxis()
    ax.set_title(f"cnn-bot fine-tuning, {rows[0]['games'] if rows else 0} games a checkpoint")
    save_figure(fig, path, dpi=120)


@reports_errors
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m player.reinforce", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="run folder")
    ap.add_argument("--init", default=None, help="folder of the four starting nets (default: shipped)")
    ap.add_argument("--updates", type=int, default=40, help="policy-gradient updates in all")
    ap.add_argument("--games", type=int, default=128,
                    help="games an update (blocks of 4 rotations); with --curve: games a checkpoint")
    ap.add_argument("--opponents", default=DEFAULT_OPPONENTS,
                    help="weighted opponent specs 'SPEC*W;SPEC*W' (default %(default)r; "
                         "'cnn-bot' is the shipped bot)")
    ap.add_argument("--lr", type=float, default=3e-5, help="Adam learning rate")
    ap.add_argument("--reward", choices=REWARDS, default="game",
                    help="what pays a discard: its game's final rank, or its hand's fall of expected "
                         "final rank (default %(default)s)")
    ap.add_argument("--clip", type=float, default=1.0, help="gradient norm clip")
    ap.add_argument("--checkpoint-every", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=None, help="game workers (default: every CPU)")
    ap.add_argument("--resume", action="store_true", help="continue the run in --out")
    ap.add_argument("--curve", action="store_true",
                    help="instead of training: evaluate every checkpoint against --vs, plot curve.png")
    ap.add_argument("--vs", default="efficiency", help="fixed opponent of --curve")
    ap.add_argument("--every", type=int, default=1,
                    help="with --curve: only the checkpoints of every EVERY-th update and the last (default: all)")
    args = ap.parse_args(argv)
    check_seed(args.seed)
    if args.games < 4 or args.games % 4:
        raise MahjongError(f"--games must be a positive multiple of 4, got {args.games}")
    if args.curve:
        out = Path(args.out)
        if not (out / "ckpt").is_dir():
            raise MahjongError(f"{out}: no checkpoints (ckpt/) to evaluate")
        if args.every < 1:
            raise MahjongError(f"--every must be a positive number of updates, got {args.every}")
        learning_curve(out, args.vs, args.games, args.seed, args.workers, args.every)
        return 0
    if args.init is None:
        from cnn.policy import DEFAULT_MODELS

        args.init = str(DEFAULT_MODELS)
    torch.set_num_threads(1)
    train(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
