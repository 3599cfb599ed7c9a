"""Benchmark of the MDP player's decisions (``player/agents/mdp.py``) in self-play.

Plays ``--games`` east games of one ``mdp`` against three ``efficiency`` agents (the mdp seat
rotates with the game index), timing every ``act`` call of the mdp agent after an untimed
warm-up game (numba compilation, estimator caches). Reported by how the decision was made
(``player.agents.mdp.METHODS``):

* ``method1``: decisions valued by PSM (own turn: discards / riichi; at an opponent's discard:
  pass / calls): estimators + situation + graph + solve;
* ``method2``: decisions at 2-3 shanten valued by Method 2 (with ``--agent mdp:method2=1``):
  graph + WSM + TSM + an FSM per action + the scenario regressions;
* ``rule_based``: hands of 4+ shanten left to the efficiency agent;
* ``error_fallback``: a graph that could not be built (should be none);
* ``forced``: a win, a single legal action, a riichi hand, no chi/pon on offer;
* ``all``: every call.

Times are wall-clock and the CPU time of the thread (steadier on a shared machine); the load
average is printed with the table. Pin to one core on a shared box:

    taskset -c 0 python benchmarks/mdp_bench.py              # table of median / p90 / p99
    python benchmarks/mdp_bench.py --games 8 --json          # one JSON object
    taskset -c 0 python benchmarks/mdp_bench.py --agent mdp:d3=4   # an agent with options
    taskset -c 0 python benchmarks/mdp_bench.py --agent mdp:method2=1   # Method 2 at 2-3 shanten

``method1`` decisions are also reported by the shanten of the hand (``method1 sh2`` ...).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from game.errors import MahjongError  # noqa: E402
from game.match import play_game  # noqa: E402
from player.agents.efficiency import EfficiencyAgent  # noqa: E402
from player.agents.mdp import METHODS, MdpAgent  # noqa: E402
from player.registry import make_agent  # noqa: E402


class _Timed:
    """Wraps the agent's ``act``, recording (kind, wall ms, cpu ms, graph states) per call."""

    def __init__(self, agent: MdpAgent):
        self.agent = agent
        self.rows: list[tuple[str, float, float, int, int]] = []
        self._act = agent.act
        agent.act = self.act

    def act(self, legal):
        before = dict(self.agent.stats)
        c0, t0 = time.thread_time(), time.perf_counter()
        choice = self._act(legal)
        wall, cpu = 1e3 * (time.perf_counter() - t0), 1e3 * (time.thread_time() - c0)
        st = self.agent.stats
        kind = next((k for k in METHODS if st[k] > before.get(k, 0)), "forced")
        info = self.agent.last_info
        self.rows.append((kind, wall, cpu, int(info.get("states", 0)), int(info.get("shanten", -1))))
        return choice


def _pct(x) -> dict[str, float]:
    x = np.asarray(x, float)
    if not len(x):
        return {"n": 0}
    return {"n": int(len(x)), "median": float(np.median(x)), "p90": float(np.percentile(x, 90)),
            "p99": float(np.percentile(x, 99)), "max": float(x.max())}


def run(games: int, seed: int, spec: str = "mdp") -> dict:
    agent = make_agent(spec)
    if not isinstance(agent, MdpAgent):
        raise MahjongError(f"--agent {spec!r} is not the mdp agent")
    timer = _Timed(agent)
    effs = [EfficiencyAgent() for _ in range(4)]

    def one(g: int) -> None:
        seat = g % 4
        seats = list(effs)
        seats[seat] = agent
        play_game(seats, seed=seed + g)

    one(-1)  # warm-up, untimed
    timer.rows.clear()
    agent.stats.clear()
    t0 = time.perf_counter()
    for g in tqdm(range(games), desc="games", file=sys.stderr):
        one(g)
    elapsed = time.perf_counter() - t0
    rows = timer.rows
    out: dict = {"agent": spec, "games": games, "seed": seed, "load_average": os.getloadavg(), "seconds": elapsed,
                 "decisions": len(rows), "stats": dict(agent.stats)}
    for kind in METHODS + ("all",):
        sel = [r for r in rows if kind == "all" or r[0] == kind]
        out[kind] = {"wall_ms": _pct([r[1] for r in sel]), "cpu_ms": _pct([r[2] for r in sel])}
    out["method1"]["states"] = _pct([r[3] for r in rows if r[0] == "method1"])
    for sh in range(4):
        sel = [r for r in rows if r[0] == "method1" and r[4] == sh]
        out[f"method1 sh{sh}"] = {"wall_ms": _pct([r[1] for r in sel]), "cpu_ms": _pct([r[2] for r in sel]),
                                  "states": _pct([r[3] for r in sel])}
    out["shares"] = {k: agent.stats[k] / max(1, len(rows)) for k in METHODS}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4, help="timed games (default 4)")
    ap.add_argument("--seed", type=int, default=1000, help="wall seed of the first game (default 1000)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--agent", default="mdp", help="the mdp agent with options, e.g. mdp:d3=4 (default mdp)")
    args = ap.parse_args(argv)
    if args.games < 1:
        print("error: --games must be >= 1", file=sys.stderr)
        return 2
    try:
        out = run(args.games, args.seed, args.agent)
    except MahjongError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{out['agent']}: {out['decisions']} mdp decisions in {args.games} games ({out['seconds']:.0f} s); load average "
          + " ".join(f"{x:.2f}" for x in out["load_average"]) + "; shares "
          + ", ".join(f"{k} {v:.3f}" for k, v in out["shares"].items()))
    print(f"{'':22}{'n':>6}{'median':>10}{'p90':>10}{'p99':>10}{'max':>10}")
    for kind in METHODS + ("all",) + tuple(f"method1 sh{sh}" for sh in range(4)):
        for clock in ("wall_ms", "cpu_ms"):
            r = out[kind][clock]
            if r["n"]:
                print(f"{kind + ' ' + clock:22}{r['n']:6d}{r['median']:10.1f}{r['p90']:10.1f}{r['p99']:10.1f}"
                      f"{r['max']:10.1f}")
    s = out["method1"]["states"]
    if s["n"]:
        print(f"{'method1 graph states':22}{s['n']:6d}{s['median']:10.0f}{s['p90']:10.0f}{s['p99']:10.0f}{s['max']:10.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
