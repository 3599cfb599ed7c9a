"""A teacher's choices at a student's states: the samples of DAgger for cnn-bot's nets.

    python -m player.relabel --records 'runs/dag_src/logs/*.mjson.gz' --seats cnn-bot --teacher mdp \\
        --out runs/dag/relabel.npz --workers 2
    python -m cnn.train_bot --records ... --extra-dataset runs/dag/relabel.npz ...

cnn-bot learns from records of its teacher (the MDP player, the phoenix players), at the
states the teacher's own play led to; when it plays, its own errors lead it to states the
teacher seldom saw (behaviour cloning's drift). DAgger (Ross, Gordon and Bagnell, 2011) asks
the teacher what it would have done at the student's states: every decision of the seats
named ``--seats`` in the records (the student's games) is answered by the ``--teacher``
agent, fed the record's events as that seat saw them (as ``player.agreement`` does), and the
teacher's answer becomes the sample's label (``cnn.bot_data``'s samples, the same format as a
``cnn.train_bot`` dataset: ``--extra-dataset`` adds it to the records' samples). A teacher that
values its actions (the MDP player's ``last_values``: minus the expected final rank) also
gives each discard sample its value of every legal discard kind (``discard_value``; NaN where
it has none), the soft targets of ``cnn.train_bot --soft-targets``.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from game.cli import reports_errors
from game.errors import MahjongError


def kind_values(agent, legal: list[dict]) -> np.ndarray | None:
    """The teacher's value of each discard kind at its last decision (the best of a kind's
    copies; NaN where it gave none), or None when it values no discard."""
    from game.tiles import mjai_to_kind

    out = np.full(34, np.nan, np.float32)
    for action, value in getattr(agent, "last_values", None) or []:
        if action.get("type") == "dahai" and value is not None:
            k = mjai_to_kind(action["pai"])
            out[k] = value if np.isnan(out[k]) else max(out[k], value)
    return out if np.isfinite(out).any() and any(a["type"] == "dahai" for a in legal) else None


def file_samples(task: tuple[str, str, str, int]) -> dict[str, np.ndarray]:
    """The relabelled samples of one record (one worker task): ``(path, seats' name,
    teacher spec, game number)``."""
    from cnn.bot_data import SampleArrays, add_game
    from game.records import player_names, read_events
    from player.agreement import SeatAgents
    from player.registry import make_agent

    path, name, teacher, game = task
    events = read_events(path)
    names = player_names(events)
    seats = [s for s in range(4) if names[s] == name]
    teachers = SeatAgents(events, {s: make_agent(teacher, seed=s) for s in seats})
    store = SampleArrays()
    if not seats:  # add_game would take a game without the named seats whole (real players)
        return store.arrays()

    def relabel(dec):
        action = teachers.act(dec)
        return action, kind_values(teachers.agents[dec.seat], dec.legal)

    add_game(store, events, game, thesis=False, seed=0, players=frozenset([name]), relabel=relabel)
    return store.arrays()


@reports_errors
def main(argv: list[str] | None = None) -> int:
    from cnn.bot_data import cache_path, merge
    from game.records import iter_record_files
    from player.selfplay import run_pool
    from regressors.datasets import write_npz

    ap = argparse.ArgumentParser(prog="python -m player.relabel", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", required=True, nargs="+", help="glob(s) or paths of the student's records")
    ap.add_argument("--seats", required=True, help="the name of the student's seats in the records (e.g. cnn-bot)")
    ap.add_argument("--teacher", default="mdp", help="registered agent that answers (default mdp)")
    ap.add_argument("--out", required=True, help="the samples' .npz")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    args = ap.parse_args(argv)
    out = cache_path(args.out)
    paths = [str(p) for p in iter_record_files(args.records)]
    if not paths:
        raise MahjongError(f"no record files match {' '.join(args.records)}")
    tasks = [(p, args.seats, args.teacher, g) for g, p in enumerate(paths)]
    parts = list(run_pool(file_samples, tasks, args.workers, desc="relabel"))
    data = merge(sorted(parts, key=lambda a: int(a["discard_game"].min()) if len(a["discard_game"]) else -1))
    if not len(data.get("discard_y", [])):
        raise MahjongError(f"no decision of a seat named {args.seats!r} in the records")
    meta = json.dumps({"records": args.records, "seats": args.seats, "teacher": args.teacher, "files": len(paths)})
    out.parent.mkdir(parents=True, exist_ok=True)
    write_npz(out, key=np.array("relabel"), meta=np.array(meta), **data)
    counts = {k[:-2]: int(len(v)) for k, v in data.items() if k.endswith("_y")}
    valued = int(np.isfinite(data["discard_value"]).any(axis=1).sum())
    print(f"{len(paths)} records, samples {counts}, {valued} discards with the teacher's values -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
