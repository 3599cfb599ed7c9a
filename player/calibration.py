"""Calibration of the MDP player's predicted endings against what really happened.

    python -m player.calibration --records 'runs/selfplay-mdp/*.mjson.gz' --name mdp
    python -m player.calibration --records '../shared/data/phoenix/mjlog/*.xml' --every 3 --json

At every recorded decision that the MDP values (own turn at 0-3 shanten, a chi/pon on offer),
the agent rebuilds the seat's situation and solves it as it would in play; the PSM's ending
probabilities of the action the record's player *actually took* (win, lose, another's win,
tenpai / noten washout; a fold PSM plans counts as that fold ends from the state and turn it
is made at: ``MdpAgent(split_fold=True)``) are compared
with how that hand really ended for that seat. The table is by shanten x tiles left, with the
largest gap between predicted and realised per cell, then two breakdowns outside the judged
cells: by shanten facing another's riichi, and the turns where riichi was on offer by the
choice (declared or dama: a riichi hand cannot fold, so its deal-ins are its own); ``--plot``
draws a reliability diagram per ending (predicted in bins vs realised); ``--json`` prints every
number.

Realised endings come from the record: a ``hora`` by the seat (win), on its discard (lose), by
another (other win); at a ``ryukyoku`` the seat's own hand (``TableState.waits``) says tenpai or
noten washout.
"""
from __future__ import annotations

import argparse
import bisect
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from game.cli import pyplot, reports_errors, save_figure
from game.errors import MahjongError
from player.agents.base import find

#: The endings compared (a planned fold ends as one of them).
ENDINGS = ("win", "lose", "other_win", "tenpai_washout", "noten_washout")
#: Tiles-left buckets (lower bounds) of the table.
TILES_LEFT = (60, 45, 30, 15, 0)
MIN_CELL = 200  # cells with fewer decisions are shown but not judged (the goal)
GAP = 0.05  # the goal's tolerance on every ending of a judged cell


@dataclass
class Row:
    """One valued decision: where, the prediction for the action taken, what happened."""

    file: str
    seat: int
    shanten: int
    tiles_left: int
    predicted: np.ndarray  # [5] over ENDINGS
    realised: int          # index into ENDINGS
    facing: bool = False   # another seat was in riichi
    declared: bool | None = None  # riichi on offer: the record declared it; None: not on offer
    hand: int = 0          # the hand's start_kyoku event index: the rows of one hand are one cluster


def realised_endings(events: list[dict]) -> dict[tuple[int, int], int]:
    """``(start_kyoku index, seat) -> ENDINGS index`` for every hand of a record."""
    from game.state import TableState

    states = [TableState(s) for s in range(4)]
    out: dict[tuple[int, int], int] = {}
    start = -1
    wins: list[tuple[int, int]] = []
    for i, e in enumerate(events):
        t = e.get("type")
        if t == "start_kyoku":
            start, wins = i, []
        elif t == "hora":
            wins.append((int(e["actor"]), int(e.get("target", e["actor"]))))
        elif t == "ryukyoku":
            for s in range(4):
                out[(start, s)] = ENDINGS.index("tenpai_washout" if states[s].waits else "noten_washout")
        elif t == "end_kyoku" and wins:
            for s in range(4):
                if any(a == s for a, _ in wins):
                    k = "win"
                elif any(tg == s for _, tg in wins):
                    k = "lose"
                else:
                    k = "other_win"
                out[(start, s)] = ENDINGS.index(k)
        for st in states:
            st.update(e)
    return out


_AGENT = None


def _agent(spec: str):
    global _AGENT
    if _AGENT is None or _AGENT[0] != spec:
        from player.registry import make_agent

        agent = make_agent(spec)
        if not hasattr(agent, "value"):
            raise MahjongError(f"agent {spec!r} does not predict endings (it has no value())")
        agent.split_fold = True  # a planned fold predicts how it ends, from where it is made
        _AGENT = (spec, agent)
    return _AGENT[1]


def recorded_choices(events: list[dict], name: str | None, every: int):
    """Every ``every``-th decision of the seats named ``name`` (all four with None) that the
    record answered among two or more legal actions, in a hand whose ending it shows: yields
    ``(decision, index of the recorded action in its legal list, ENDINGS index, the hand's
    start_kyoku event index)``."""
    from game.decisions import iter_decisions, recorded_index
    from game.records import player_names

    ends = realised_endings(events)
    names = player_names(events)
    seats = [s for s in range(4) if name is None or names[s] == name]
    starts = [i for i, e in enumerate(events) if e.get("type") == "start_kyoku"]  # ascending
    k = 0
    for d in iter_decisions(events, seats=seats):
        at = bisect.bisect_right(starts, d.index)
        hand = starts[at - 1] if at else -1
        real = ends.get((hand, d.seat))
        pick = recorded_index(d.legal, d.chosen) if real is not None and len(d.legal) > 1 else None
        if pick is None:
            continue
        k += 1
        if (k - 1) % every == 0:
            yield d, pick, real, hand


def file_rows(task: tuple[str, str, str | None, int, tuple[int, str] | None]) -> list[Row]:
    """The calibration rows of one record (one worker task); with a ``cell`` (shanten, tiles
    left's label) only the decisions in it are valued."""
    from game.records import read_events
    from search.shanten import shanten

    path, spec, name, every, cell = task
    agent = _agent(spec)
    rows: list[Row] = []
    for d, pick, real, hand in recorded_choices(read_events(path), name, every):
        sh = int(shanten(np.asarray(d.state.hand, np.uint8)))
        if cell is not None and (sh, _bucket(int(d.state.tiles_left))) != cell:
            continue
        valued = agent.value(d.state, d.legal)
        if valued is None or valued[pick][2] is None:
            continue
        pred = np.asarray(valued[pick][2], dtype=np.float64)
        if len(pred) > len(ENDINGS) and pred[len(ENDINGS):].any():
            raise RuntimeError(f"{path}: a fold was predicted unsplit at event {d.index}")
        pred = pred[:len(ENDINGS)]
        facing = any(d.state.riichi[j] for j in range(4) if j != d.seat)
        declared = None if find(d.legal, "reach") is None else d.legal[pick]["type"] == "reach"
        rows.append(Row(str(path), d.seat, sh, int(d.state.tiles_left), pred, real, facing, declared, hand))
    return rows


def parse_cell(text: str) -> tuple[int, str]:
    """``"1/60-70"`` -> ``(1, "60-70")``: a shanten x tiles-left cell of the table."""
    labels = [_bucket(lo) for lo in TILES_LEFT]
    sh, _, band = text.partition("/")
    try:
        shanten = int(sh)
    except ValueError:
        shanten = None
    if shanten is None or band not in labels:
        raise MahjongError(f"--cell {text!r}: want SHANTEN/TILES as in the table, e.g. 1/60-70 "
                           f"(tiles one of {', '.join(labels)})")
    return shanten, band


def calibrate(paths: list[str], agent: str = "mdp", *, name: str | None = None, every: int = 1,
              workers: int = 1, cell: tuple[int, str] | None = None) -> list[Row]:
    """Rows of every record (see :func:`file_rows`), both cores with ``workers=2``; with
    ``cell`` only its decisions (:func:`parse_cell`)."""
    from player.selfplay import run_pool

    if every < 1:
        raise MahjongError(f"--every must be >= 1, got {every}")
    tasks = [(str(p), agent, name, every, cell) for p in paths]
    rows: list[Row] = []
    for part in run_pool(file_rows, tasks, workers, desc="calibrating"):
        rows += part
    return rows


def _bucket(w: int) -> str:
    for lo in TILES_LEFT:
        if w >= lo:
            hi = TILES_LEFT[TILES_LEFT.index(lo) - 1] - 1 if lo != TILES_LEFT[0] else 70
            return f"{lo}-{hi}"
    return "0"


def _hand_key(r: Row) -> tuple[str, int, int]:
    return r.file, r.hand, r.seat


def gap_se(rows: list[Row]) -> np.ndarray:
    """Standard error of each ending's gap (mean predicted - realised) over ``rows``, the
    decisions of one seat's hand taken as one cluster: they share one ending, so they are
    not independent draws. The cluster-robust variance ``G/(G-1) * sum_c (S_c - n_c m)^2 / n^2``
    (``S_c`` the summed gaps of hand ``c``, ``m`` their mean, ``G`` hands); 0 with one hand."""
    x = np.array([r.predicted for r in rows]) - np.eye(len(ENDINGS))[[r.realised for r in rows]]
    keys = [_hand_key(r) for r in rows]
    index = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    g = len(index)
    if g < 2:
        return np.zeros(len(ENDINGS))
    per_hand = np.zeros((g, len(ENDINGS)))
    np.add.at(per_hand, [index[k] for k in keys], x - x.mean(0))
    return np.sqrt(g / (g - 1) * (per_hand ** 2).sum(0)) / len(rows)


def summarize(rows: list[Row]) -> dict:
    """Predicted and realised ending rates overall, by shanten, by shanten x tiles left, and
    by shanten for the decisions facing another's riichi and, where riichi was on offer, by
    the choice (declared / dama; neither among the judged cells);
    ``max_gap`` of a cell is the largest |predicted - realised| over the endings, ``judged``
    whether it has at least :data:`MIN_CELL` decisions; ``gap_se`` the standard error of each
    gap by hands (:func:`gap_se`), ``max_gap_se`` that of the largest, and ``clearly_off``
    whether some gap exceeds :data:`GAP` by more than two of its standard errors (a cell can
    miss the goal by chance alone: its decisions come from few hands)."""
    def cell(sel: list[Row]) -> dict:
        if not sel:
            return {"n": 0}
        P = np.array([r.predicted for r in sel])
        R = np.bincount([r.realised for r in sel], minlength=len(ENDINGS)) / len(sel)
        pm = P.mean(0)
        gap = np.abs(pm - R)
        se = gap_se(sel)
        off = bool(np.any(gap - GAP > 2 * se))
        return {"n": len(sel), "hands": len({_hand_key(r) for r in sel}),
                "predicted": dict(zip(ENDINGS, pm.round(4).tolist())),
                "realised": dict(zip(ENDINGS, R.round(4).tolist())),
                "max_gap": round(float(gap.max()), 4), "gap_se": dict(zip(ENDINGS, se.round(4).tolist())),
                "max_gap_se": round(float(se[gap.argmax()]), 4), "judged": len(sel) >= MIN_CELL,
                "clearly_off": off}

    out = {"decisions": len(rows), "overall": cell(rows), "by_shanten": {}, "cells": {}}
    for sh in sorted({r.shanten for r in rows}):
        sel = [r for r in rows if r.shanten == sh]
        out["by_shanten"][str(sh)] = cell(sel)
        for lo in TILES_LEFT:
            b = _bucket(lo)
            c = cell([r for r in sel if _bucket(r.tiles_left) == b])
            if c["n"]:
                out["cells"][f"{sh}/{b}"] = c
    out["facing_riichi"] = {str(sh): cell([r for r in rows if r.facing and r.shanten == sh])
                            for sh in sorted({r.shanten for r in rows})}
    out["riichi_on_offer"] = {"declared": cell([r for r in rows if r.declared is True]),
                              "dama": cell([r for r in rows if r.declared is False])}
    judged = [c for c in out["cells"].values() if c["judged"]]
    out["judged_cells"] = len(judged)
    out["cells_within_0.05"] = sum(1 for c in judged if c["max_gap"] <= GAP)
    out["cells_clearly_off"] = sum(1 for c in judged if c["clearly_off"])
    return out


def format_table(summary: dict) -> str:
    short = ("win", "lose", "other", "tw", "nw")
    head = f"{'shanten/tiles left':20s} {'n':>6s}  " + "  ".join(f"{s:>11s}" for s in short) + "   max gap +- SE"
    lines = ["predicted / realised ending rates of the action taken", head]

    def line(label: str, c: dict) -> str:
        pr = "  ".join(f"{c['predicted'][e]:.2f}/{c['realised'][e]:.2f}".rjust(11) for e in ENDINGS)
        flag = "" if c["judged"] else "  (n < %d)" % MIN_CELL
        off = "  clearly off" if c["judged"] and c["clearly_off"] else ""
        return f"{label:20s} {c['n']:6d}  {pr}   {c['max_gap']:.3f} +- {c['max_gap_se']:.3f}{flag}{off}"

    if summary["decisions"]:
        lines.append(line("all", summary["overall"]))
        for sh, c in summary["by_shanten"].items():
            lines.append(line(f"shanten {sh}", c))
        for key, c in summary["cells"].items():
            lines.append(line("  " + key, c))
        for sh, c in summary.get("facing_riichi", {}).items():
            if c["n"]:
                lines.append(line(f"facing riichi, sh {sh}", c))
        for choice, c in summary.get("riichi_on_offer", {}).items():
            if c["n"]:
                lines.append(line(f"riichi on offer, {choice}", c))
    lines.append(f"{summary['cells_within_0.05']} of {summary['judged_cells']} cells with >= {MIN_CELL} decisions "
                 f"within {GAP} on every ending ({summary['decisions']} decisions); "
                 f"{summary['cells_clearly_off']} off by more than {GAP} + 2 SE (SE by hands)")
    return "\n".join(lines)


def plot(rows: list[Row], path: Path) -> Path:
    """Reliability diagram: per ending, predicted probability in bins vs realised frequency."""
    plt = pyplot()

    P = np.array([r.predicted for r in rows]) if rows else np.zeros((0, 5))
    R = np.array([r.realised for r in rows], dtype=int)
    fig, axes = plt.subplots(1, 5, figsize=(17, 3.8), sharey=True)
    bins = np.linspace(0, 1, 11)
    for k, ax in enumerate(axes):
        x, y, n = [], [], []
        for lo, hi in zip(bins[:-1], bins[1:]):
            sel = (P[:, k] >= lo) & ((P[:, k] < hi) if hi < 1 else (P[:, k] <= hi))
            if sel.sum() >= 20:
                x.append(P[sel, k].mean())
                y.append((R[sel] == k).mean())
                n.append(int(sel.sum()))
        ax.plot([0, 1], [0, 1], color="0.7", lw=1)
        ax.plot(x, y, "o-")
        for xi, yi, ni in zip(x, y, n):
            ax.annotate(str(ni), (xi, yi), fontsize=7, textcoords="offset points", xytext=(3, -9))
        ax.set_title(ENDINGS[k])
        ax.set_xlabel("predicted")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("realised")
    fig.suptitle(f"Predicted vs realised endings of the action taken ({len(rows)} decisions; bins of >= 20)")
    return save_figure(fig, path, dpi=110)


@reports_errors
def main(argv: list[str] | None = None) -> int:
    from player.record_options import add_record_options, record_paths

    ap = argparse.ArgumentParser(prog="python -m player.calibration", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_record_options(ap, agent_help="the agent that predicts (default mdp; NAME:KEY=VALUE options)",
                       every_help="value every k-th decision (default 1: all)", seat_name=True)
    ap.add_argument("--plot", default=None, help="write the reliability diagram to this PNG")
    ap.add_argument("--cell", default=None, help="value only the decisions of one cell, SHANTEN/TILES "
                                                 "(e.g. 1/60-70): a quick look at one cell by several agents")
    args = ap.parse_args(argv)
    cell = None if args.cell is None else parse_cell(args.cell)
    paths = record_paths(args)
    if args.plot and Path(args.plot).is_dir():  # before the long run, not after it
        raise MahjongError(f"--plot {args.plot} is a directory; name a .png file")
    rows = calibrate(paths, args.agent, name=args.name, every=args.every, workers=args.workers, cell=cell)
    summary = summarize(rows)
    summary.update(agent=args.agent, records=len(paths))
    if args.plot:
        summary["plot"] = str(plot(rows, Path(args.plot)))
    print(json.dumps(summary, indent=1) if args.json else format_table(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
