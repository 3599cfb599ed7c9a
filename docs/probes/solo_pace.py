"""Probe (docs/sessions.md "Session 44"): how fast PSM's closed early 1-shanten hands can go, and how fast
its plan goes, one seat name's decisions in evaluate or self-play logs.

At every own-turn decision of a closed 1-shanten hand with 60 or more tiles left (the cell
the calibration misses most), the situation the default agent builds is solved six ways over
the graph it builds, each giving the endings of the best discard: PSM as played (a planned
fold split into how it ends, as the calibration counts it, and as such); PSM *solo*
(nobody else wins, nothing deals in, no fold: the same payoffs); WSM with every win worth 1
(the most wins the hand can make in the model: its pace alone); the same with the ron and
draw shares at 1 (every wait discarded and drawn at its unseen share); TSM (the chance of
being tenpai when the wall ends). The record's own endings come beside them.

    python docs/probes/solo_pace.py 'runs/s44/dev36_A/logs/*.gz' --name mdp --files 40
"""
from __future__ import annotations

import argparse
import glob
from dataclasses import replace

import numpy as np

from abstractions.psm import solve_psm
from abstractions.situation import situation_of
from abstractions.tsm import solve_tsm
from abstractions.wsm import solve_wsm
from game.records import read_events
from player.calibration import ENDINGS, recorded_choices
from player.registry import make_agent
from search.retrograde import OUTCOMES
from search.shanten import shanten


def cases(path: str, name: str):
    """``(state, realised ending index)`` of the seat ``name``'s own turns at 1 shanten, closed,
    60+ tiles left, in hands whose ending the record shows (the calibration's decisions)."""
    for d, _, real, _ in recorded_choices(read_events(path), name, 1):
        st = d.state
        if st.tiles_left < 60 or st.melds[st.seat] or not any(a["type"] == "dahai" for a in d.legal):
            continue
        if shanten(np.asarray(st.hand, np.uint8)) == 1:
            yield st, real


def best(rv) -> np.ndarray:
    """The endings (``OUTCOMES``) of the best discard."""
    key = max(rv.discards, key=rv.discards.get)
    return np.asarray(rv.probs[key], dtype=np.float64)


def solves(agent, st) -> dict[str, np.ndarray]:
    sit = situation_of(st, agent.est, model=agent.model)
    g = agent._graph(sit, st)
    p, drawn = sit.params, st.drawn >> 2
    calm = dict(p_other=0.0, p_end=0.0, p_lose=np.zeros(34), lose_growth=1.0)
    solo = replace(p, **calm, fold=False, riichi=replace(p.riichi, **calm) if p.riichi else None)
    one = replace(p, payoff=1.0, p_end=0.0, riichi=replace(p.riichi, payoff=1.0, p_end=0.0) if p.riichi else None)
    flat = replace(one, ron_scale=1.0, draw_share=1.0, progress_share=(1.0, 1.0, 1.0),
                   riichi=replace(one.riichi, ron_scale=1.0) if one.riichi else None)
    win = OUTCOMES.index("win")
    # a planned fold ends as the calibration counts it, from the state and turn it is made at
    out = {"PSM": best(solve_psm(g, replace(p, split_fold=True), drawn=drawn)),
           "PSM, a planned fold as such": best(solve_psm(g, p, drawn=drawn)),
           "PSM solo": best(solve_psm(g, solo, drawn=drawn))}
    for label, q in (("WSM, a win worth 1", one), ("the same, shares at 1", flat)):
        out[label] = np.eye(len(OUTCOMES))[win] * max(solve_wsm(g, q, drawn=drawn).discards.values())
    tw = OUTCOMES.index("tenpai_washout")
    out["TSM (tenpai at the end)"] = np.eye(len(OUTCOMES))[tw] * max(solve_tsm(g, replace(p, p_end=0.0)).discards.values())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", help="record glob")
    ap.add_argument("--name", default="mdp", help="the seats of this player name")
    ap.add_argument("--files", type=int, default=40, help="the first this many files")
    args = ap.parse_args()
    agent = make_agent("mdp")
    sums: dict[str, np.ndarray] = {}
    real = np.zeros(len(ENDINGS))
    n = 0
    for path in sorted(glob.glob(args.records))[:args.files]:
        for st, r in cases(path, args.name):
            for label, v in solves(agent, st).items():
                sums[label] = sums.get(label, 0.0) + v
            real[r] += 1
            n += 1
    print(f"{n} decisions")
    print("| | " + " | ".join(OUTCOMES) + " |")
    print("|---" * (len(OUTCOMES) + 1) + "|")
    print("| realised | " + " | ".join(f"{x / n:.3f}" for x in real) + " | |")
    for label, v in sums.items():
        print(f"| {label} | " + " | ".join(f"{x / n:.3f}" for x in v) + " |")


if __name__ == "__main__":
    main()
