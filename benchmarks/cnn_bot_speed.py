"""cnn-bot speed: plane encoding, the decision features and one full decision (encode +
features when the nets read them + nets) per decision point, on one thread.

    python benchmarks/cnn_bot_speed.py [--games 2] [--agent efficiency] [--models DIR] [--clock cpu] [--conv]

Decision points come from self-play games of ``--agent`` (default ``efficiency``, whose
closed tenpai hands put riichi on offer; ``random`` agents, the figures before session 32,
almost never do) replayed by ``game.decisions.iter_decisions``; prints median / p90 / p99 in
microseconds of wall time, or with ``--clock cpu`` of the thread's CPU time (steadier when
other jobs share the machine),
and the full decision by kind: an own turn without riichi on offer (one net), with it (the
riichi net, then the discard net unless it declares), a call on offer (the pon and / or chi
nets), and the rest (a win or a pass: no net). ``--conv`` also times every decision with
the nets' batch path (``conv2d``) in turns with the default one-position path
(:class:`cnn.nets.FoldedNet`), the same decisions on the same clock: what the path saves.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from cnn.encoders import N_PLANES, SeatHistory, offered_kind
from cnn.features import feature_planes
from cnn.policy import CnnPolicy, load_nets
from game.decisions import iter_decisions
from game.match import play_game
from player.registry import make_agent


def stats(name: str, micros: list[float]) -> None:
    a = np.asarray(micros)
    print(f"{name:28s} n={len(a):5d}  median {np.median(a):8.1f} us  p90 {np.percentile(a, 90):8.1f} us"
          f"  p99 {np.percentile(a, 99):8.1f} us")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--models", default=None, help="folder of the four nets (default: shipped)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall time (default) or this thread's CPU time")
    ap.add_argument("--agent", default="efficiency", help="the agents whose self-play gives the decision points")
    ap.add_argument("--conv", action="store_true",
                    help="also time each decision with the batch path's conv2d, in turns with the default")
    args = ap.parse_args()
    now = time.perf_counter if args.clock == "wall" else time.thread_time
    torch.set_num_threads(1)
    decisions = []
    for seed in range(args.games):
        res = play_game([make_agent(args.agent, seed=seed * 4 + s) for s in range(4)], seed=seed)
        decisions += [d for d in iter_decisions(res.events) if len(d.legal) > 1]
    policy = CnnPolicy(load_nets(args.models))
    conv = CnnPolicy(load_nets(args.models)) if args.conv else None
    for pol in (policy, conv) if conv is not None else (policy,):  # fold every net (and compile) first
        for task in pol.nets:
            pol.probs(task, np.zeros((N_PLANES, 34, 4), np.float32))
        for net in pol._folded.values():
            net.one_at_a_time = pol is policy
    enc, feats, full, full_conv = [], [], [], []
    by_kind: dict[str, list[float]] = {}
    hist = [SeatHistory() for _ in range(4)]
    hist2 = [SeatHistory() for _ in range(4)]
    hist3 = [SeatHistory() for _ in range(4)]
    for k, d in enumerate(decisions):
        types = {a["type"] for a in d.legal}
        own = bool(types & {"dahai", "reach", "ankan"})
        t0 = now()
        hist[d.seat].encode(d.state, discard_decision="dahai" in types,
                            offered=None if own else offered_kind(d.state))
        enc.append((now() - t0) * 1e6)
        t0 = now()
        feature_planes(d.state, d.legal)
        feats.append((now() - t0) * 1e6)
        if conv is not None and k % 2:  # the order alternates: neither path always goes first
            full_conv.append(timed_decide(conv, d, hist3, now))
        full.append(timed_decide(policy, d, hist2, now))
        if conv is not None and not k % 2:
            full_conv.append(timed_decide(conv, d, hist3, now))
        by_kind.setdefault(decision_kind(types), []).append(full[-1])
    print(f"{args.clock} clock, {len(decisions)} decision points")
    stats(f"encode ({N_PLANES} planes)", enc)
    stats("decision features", feats)
    stats("decide (encode + nets)" + (" + features" if policy.features else ""), full)
    for kind in KINDS:
        if kind in by_kind:
            stats(f"  {kind}", by_kind[kind])
    if full_conv:
        stats("decide, nets by conv2d", full_conv)


KINDS = ("own turn", "own turn, riichi on offer", "call on offer", "no net")


def decision_kind(types: set[str]) -> str:
    """The kind of a decision point by the nets it may run (the module docstring)."""
    if "hora" in types:
        return "no net"
    if "reach" in types:
        return "own turn, riichi on offer"
    if "dahai" in types:
        return "own turn"
    return "call on offer" if types & {"pon", "chi"} else "no net"


def timed_decide(policy: CnnPolicy, d, hist: list, now) -> float:
    """Microseconds of one ``policy.decide`` on decision point ``d``."""
    t0 = now()
    policy.decide(d.state, hist[d.seat], d.legal)
    return (now() - t0) * 1e6


if __name__ == "__main__":
    main()
