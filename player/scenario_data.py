"""The rows of Method 2's scenario regressions (Eq. 18) from game records.

    python -m player.scenario_data --records 'runs/s3/logs/*.mjson.gz' --name mdp --out runs/scen.npz --workers 2

At every recorded decision of the chosen seats at 2-3 shanten (own turn, or a chi/pon on offer),
the MDP player rebuilds the situation and runs Method 2's WSM, TSM and FSM
(:meth:`player.agents.mdp.MdpAgent.scenario_features`); the features of the action the record's
player *took* (a discard, the pass, or a call with the discard that followed it) become one row,
labelled with how that hand really ended for that seat (``player.calibration``'s reading of the
record). A discard ronned at once makes no row: Eq. 4 values that deal-in outside Eq. 17. ``python -m regressors.scenarios --data FILE`` fits the regressions on them.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from game.cli import reports_errors
from game.errors import MahjongError


def _ronned_at_once(events: list[dict], i: int, seat: int) -> bool:
    """The discard at ``events[i]`` is ronned before anyone draws again."""
    for e in events[i + 1:]:
        t = e.get("type")
        if t == "hora":
            return e.get("target") == seat and e.get("actor") != seat
        if t in ("tsumo", "end_kyoku", "ryukyoku", "start_kyoku"):
            return False
    return False


def _taken_key(events: list[dict], d, pick: int):
    """The Method 2 action key of the record's choice (a discard's kind, ``"pass"``, or
    ``("call", u, code, t)`` with ``t`` the seat's next discard) and the event index of the
    discard it makes (None for a pass); None when it is none of them."""
    from game.tiles import mjai_to_kind
    from player.agents.mdp import call_code

    a = d.legal[pick]
    if a["type"] == "none":
        return "pass", None
    if a["type"] not in ("dahai", "chi", "pon"):
        return None
    at = next((i for i in range(d.index + 1, len(events))
               if events[i].get("type") == "dahai" and events[i].get("actor") == d.seat), None)
    if at is None:
        return None
    if a["type"] == "dahai":
        return mjai_to_kind(a["pai"]), at
    return ("call", mjai_to_kind(a["pai"]), call_code(a), mjai_to_kind(events[at]["pai"])), at


def _without_model(spec: str) -> str:
    """``spec`` with Method 2 off unless it says otherwise: the features need no scenario model,
    and the rows must be buildable when the shipped one was fitted on other features."""
    from player.registry import parse_agent_spec

    name, opts = parse_agent_spec(spec)
    if name != "mdp" or "method2" in opts:
        return spec
    return f"{spec}{',' if ':' in spec else ':'}method2=0"


def file_rows(task: tuple[str, str, str | None, int]) -> list[tuple[np.ndarray, int, int, int]]:
    """``(features, ending, shanten, tiles_left)`` of one record's decisions (one worker task)."""
    from game.records import read_events
    from player.calibration import _agent, recorded_choices
    from search.shanten import shanten

    path, spec, name, every = task
    agent = _agent(_without_model(spec))
    if not hasattr(agent, "scenario_features"):
        raise MahjongError(f"agent {spec!r} has no Method 2 features; use an mdp agent")
    events = read_events(path)
    rows = []
    for d, pick, real, _ in recorded_choices(events, name, every):
        out = agent.scenario_features(d.state, d.legal)
        taken = _taken_key(events, d, pick) if out is not None else None
        if taken is None or taken[0] not in out["features"]:
            continue
        key, at = taken
        if at is not None and _ronned_at_once(events, at, d.seat):
            continue  # Eq. 4's own term, outside the regressions

        rows.append((out["features"][key], int(real), int(shanten(np.asarray(d.state.hand, np.uint8))),
                     int(d.state.tiles_left)))
    return rows


def _numbered_rows(task: tuple[int, tuple[str, str, str | None, int]]) -> tuple[int, list]:
    return task[0], file_rows(task[1])


def build(paths: list[str], agent: str = "mdp", *, name: str | None = None, every: int = 1,
          workers: int = 1) -> dict[str, np.ndarray]:
    """The arrays of every record's rows; ``game`` numbers the records in ``paths`` order."""
    from player.selfplay import run_pool
    from regressors.scenarios import SCENARIO_FEATURES

    if every < 1:
        raise MahjongError(f"--every must be >= 1, got {every}")
    tasks = [(i, (str(p), agent, name, every)) for i, p in enumerate(paths)]
    parts = dict(run_pool(_numbered_rows, tasks, workers, desc="scenario rows"))  # they come as they finish
    X, y, sh, left, game = [], [], [], [], []
    for g in range(len(tasks)):
        for f, real, s, w in parts.pop(g):
            X.append(f)
            y.append(real)
            sh.append(s)
            left.append(w)
            game.append(g)
    return {"X": np.array(X, dtype=np.float64).reshape(-1, len(SCENARIO_FEATURES)), "y": np.array(y, np.int64),
            "shanten": np.array(sh, np.int64), "tiles_left": np.array(left, np.int64),
            "game": np.array(game, np.int64), "features": np.array(SCENARIO_FEATURES)}


@reports_errors
def main(argv: list[str] | None = None) -> int:
    from player.record_options import add_record_options, record_paths

    ap = argparse.ArgumentParser(prog="python -m player.scenario_data", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_record_options(ap, agent_help="the MDP agent that runs the MDPs (default mdp; NAME:KEY=VALUE options; its scenario "
                                      "model is not loaded unless method2= is given)",
                       every_help="use every k-th decision (default 1: all)", seat_name=True)
    ap.add_argument("--out", required=True, help="the .npz file to write")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if out.is_dir():
        raise MahjongError(f"--out {out} is a directory; name a .npz file")
    paths = record_paths(args)
    arrays = build(paths, args.agent, name=args.name, every=args.every, workers=args.workers)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **arrays)
    from regressors.scenarios import SCENARIOS

    counts = dict(zip(SCENARIOS, np.bincount(arrays["y"], minlength=5).tolist()))
    if args.json:
        print(json.dumps({"rows": len(arrays["y"]), "records": len(paths), "out": str(out), "endings": counts}))
    else:
        print(f"{len(arrays['y'])} rows from {len(paths)} records -> {out}; endings "
              + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
