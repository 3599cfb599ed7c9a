"""Probe (docs/sessions.md "Session 39"): one seat name's riichi declarations in evaluate or self-play
logs, the locked hand's events PSM expects against the events that happened.

For every declaration the player made, PSM's locked-state parameters (``RiichiParams.arrays``
of the situation the agent builds) give per turn ``n`` the chance of another's win
(``p_other[n]``), of our deal-in (the drawn non-wait tile's ``p_lose`` times ``g_lose[n]``),
of our tsumo (``draw_share[0, n-1]`` times the waits' unseen share at the declaration: the
graph draws from the declaration's pool) and of a ron (three discards at ``ron_scale`` times
``p_disc`` of the waits). Summed over the turns each hand really lasted, they are the expected
counts of each event; the record gives the real ones. ``tsumo_pool``: the tsumo with the
waits' share over the pool of each draw, the draw shares of ``mdp:pool_shrink=1``'s own
situation; ``ron_pool``: a turn's rons over the pool of our draw before its discards
(``abstractions.situation.shrinking_pool``: four tiles fewer a turn, never below the pool the
wall cannot give up).

    python docs/probes/riichi_events.py 'runs/s36/dev26_A/logs/*.gz' --name mdp --files 150
"""
from __future__ import annotations

import argparse
import collections
import glob

import numpy as np

from abstractions.situation import shrinking_pool
from game.records import read_events
from player.agents.base import find
from player.calibration import recorded_choices
from player.registry import make_agent


def lived(events: list[dict], index: int, seat: int) -> tuple[int, str]:
    """Our draws after the declaration at ``index`` and how the hand ended for ``seat``."""
    draws = 0
    for e in events[index + 1:]:
        t = e.get("type")
        if t == "tsumo" and e["actor"] == seat:
            draws += 1
        elif t == "hora":
            if e["actor"] == seat:
                return draws, "tsumo" if e["target"] == seat else "ron"
            return draws, "lose" if e["target"] == seat else "other"
        elif t == "ryukyoku":
            return draws, "washout"
    return draws, "washout"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records")
    ap.add_argument("--name", default="mdp")
    ap.add_argument("--files", type=int, default=150)
    args = ap.parse_args()
    agent, pooled = make_agent("mdp:pool_shrink=0"), make_agent("mdp:pool_shrink=1")
    expected, real = collections.Counter(), collections.Counter()
    for path in sorted(glob.glob(args.records))[:args.files]:
        events = read_events(path)
        for d, pick, _, _ in recorded_choices(events, args.name, 1):
            if find(d.legal, "reach") is None or d.legal[pick]["type"] != "reach":
                continue
            agent.state = pooled.state = d.state
            p = agent._situation().params.checked(np.asarray(d.state.unseen))
            share_pool = np.asarray(pooled._situation().params.draw_share, np.float64)
            arr = p.riichi.arrays(p)
            discard = next(e for e in events[d.index + 1:] if e.get("type") == "dahai" and e["actor"] == d.seat)
            after = d.state.copy()
            after.update(discard)
            waits = sorted(after.waits)
            unseen = np.asarray(d.state.unseen, np.float64)
            rest = unseen.copy()
            rest[waits] = 0
            share = np.asarray(p.draw_share, np.float64).reshape(-1, p.T)[0]
            pool = shrinking_pool(unseen, d.state.tiles_left, p.T)
            u_waits = unseen[waits].sum() / unseen.sum()  # the kernels give the waits at most every draw
            draws, end = lived(events, d.index, d.seat)
            real[end] += 1
            for n in range(min(draws + 1, p.T)):
                if n > 0:
                    expected["tsumo"] += share[n - 1] * u_waits
                    expected["tsumo_pool"] += min(share_pool[n - 1] * u_waits, 1.0)
                    expected["lose"] += float((rest / rest.sum() * arr["p_lose"]).sum() * arr["g_lose"][n])
                expected["other"] += arr["p_other"][n]
                hit = arr["ron_scale"] * arr["p_disc"][waits].sum()
                expected["ron"] += 1 - (1 - hit) ** 3
                expected["ron_pool"] += 1 - (1 - min(1.0, hit * (pool[n - 1] if n else 1.0))) ** 3
    print(sum(real.values()), "declarations")
    print("happened:", dict(real))
    print("PSM expected over the turns lived:", {k: round(float(v), 1) for k, v in expected.items()})


if __name__ == "__main__":
    main()
