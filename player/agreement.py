"""Agreement of any registered agent with the choices recorded in game records.

    python -m player.agreement --records '../shared/data/phoenix/mjlog/*.xml' --agent mdp:hanchan=1
    python -m player.agreement --records 'runs/x/logs/*.gz' --agent efficiency --json
    python -m player.agreement --heldout --agent mdp:hanchan=1   # the 14 phoenix games no cnn net saw

Every seat of every record gets its own agent, fed the record's events as that seat saw them;
at each of the seat's decisions the agent chooses among the engine's legal actions and its
choice is compared with the recorded one:

* own turn (a discard or riichi): the same riichi-or-not and the same kind discarded
  (decisions right after the seat's own riichi declaration are left out: the discard is
  then nearly forced), by the shanten of the 14-tile hand;
* riichi (own turns where riichi is legal): the same riichi-or-not, whatever the discard;
* calls (chi / pon offered): the same kind of answer (chi, pon or pass);
* facing a riichi (own turns while another seat is in riichi, by the shanten of the hand):
  the agreement, and how often the recorded and the agent's discards were safe against every
  riichi (a kind it cannot ron: ``regressors.features.safe_kinds``), the push-or-fold of each.

``--every k`` asks only every k-th decision (the agent still follows every event).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from game.cli import reports_errors
from game.errors import MahjongError
from player.agents.base import Agent


def same_choice(choice: dict, chosen: dict) -> bool:
    """The same decision for agreement: the same type, for a discard the same kind of tile."""
    from game.tiles import mjai_to_kind

    if choice["type"] != chosen.get("type"):
        return False
    if choice["type"] == "dahai":
        return mjai_to_kind(choice["pai"]) == mjai_to_kind(chosen["pai"])
    return True


def _safe(choice: dict, safe: np.ndarray) -> bool:
    """A discard of a kind every riichi player cannot ron (a riichi declaration is not)."""
    from game.tiles import mjai_to_kind

    return choice["type"] == "dahai" and bool(safe[mjai_to_kind(choice["pai"])])


class SeatAgents:
    """Agents that follow a record, each fed the events as its seat saw them (one agent a
    seat, started at construction): :meth:`feed` brings the seat's agent up to a decision
    (``game.decisions.Decision``), :meth:`act` feeds it and asks for its choice."""

    def __init__(self, events: list[dict], agents: dict[int, Agent]):
        self.events, self.agents = events, agents
        self.fed = {s: 0 for s in agents}
        for s, a in agents.items():
            a.start_game(s)

    def feed(self, dec) -> None:
        from game.state import seat_view

        s = dec.seat
        for e in self.events[self.fed[s]:dec.index + 1]:
            self.agents[s].observe(seat_view(e, s))
        self.fed[s] = dec.index + 1

    def act(self, dec) -> dict:
        self.feed(dec)
        return self.agents[dec.seat].act(dec.legal)


def file_agreement(task: tuple[str, str, int]) -> list[tuple]:
    """``(kind, shanten, agreed)`` for the decisions of one record (one worker task);
    kind is ``own``, ``riichi`` (the riichi-or-not of an own turn where riichi is legal) or
    ``call``, shanten -1 for calls; and for own turns facing a riichi a row
    ``("facing", shanten, agreed, recorded safe, agent's safe)``."""
    from game.decisions import iter_decisions, recorded_index
    from game.records import read_events
    from player.registry import make_agent
    from regressors.features import safe_kinds
    from search.shanten import shanten

    path, spec, every = task
    events = read_events(path)
    seats = SeatAgents(events, {s: make_agent(spec, seed=s) for s in range(4)})
    out: list[tuple] = []
    k = 0
    for d in iter_decisions(events):
        s = d.seat
        seats.feed(d)
        if len(d.legal) < 2 or recorded_index(d.legal, d.chosen) is None:
            continue
        own = any(a["type"] in ("dahai", "reach") for a in d.legal)
        offered = any(a["type"] in ("chi", "pon") for a in d.legal)
        if own and d.state.reach_declared[s] or not own and not offered:
            continue
        if any(a["type"] == "hora" for a in d.legal) or d.state.riichi[s]:
            continue
        k += 1
        if (k - 1) % every:
            continue
        choice = seats.act(d)
        sh = int(shanten(np.asarray(d.state.hand, np.uint8))) if own else -1
        out.append(("own" if own else "call", sh, same_choice(choice, d.chosen)))
        threats = [j for j in range(4) if j != s and d.state.riichi[j]]
        if own and threats:
            safe = np.logical_and.reduce([safe_kinds(d.state, j) for j in threats])
            out.append(("facing", sh, out[-1][2], _safe(d.chosen, safe), _safe(choice, safe)))
        if any(a["type"] == "reach" for a in d.legal):
            out.append(("riichi", sh, (choice["type"] == "reach") == (d.chosen.get("type") == "reach")))
    return out


def _facing(rows: list[tuple]) -> dict:
    """Own turns facing a riichi: agreement and the safe discards' shares, recorded / agent's."""
    n = len(rows)
    return {"n": n, "agreement": round(float(np.mean([r[2] for r in rows])), 4) if n else None,
            "recorded_safe": round(float(np.mean([r[3] for r in rows])), 4) if n else None,
            "agent_safe": round(float(np.mean([r[4] for r in rows])), 4) if n else None}


def summarize(rows: list[tuple]) -> dict:
    """Agreement overall, by kind of decision, for own turns by shanten (4 = 4 or more), and
    for own turns facing a riichi by shanten (0, 1, 2 = 2 or more)."""
    def rate(sel: list[bool]) -> dict:
        return {"n": len(sel), "agreement": round(float(np.mean(sel)), 4) if sel else None}

    by_sh: dict[int, list[bool]] = defaultdict(list)
    for kind, sh, ok, *_ in rows:
        if kind == "own":
            by_sh[min(sh, 4)].append(ok)

    def of_kind(k: str) -> dict:
        return rate([r[2] for r in rows if r[0] == k])

    facing = [r for r in rows if r[0] == "facing"]
    return {"decisions": sum(r[0] in ("own", "call") for r in rows), "own_turn": of_kind("own"),
            "riichi": of_kind("riichi"), "calls": of_kind("call"),
            "own_turn_by_shanten": {str(s): rate(v) for s, v in sorted(by_sh.items())},
            "facing_riichi": _facing(facing),
            "facing_riichi_by_shanten": {str(s): _facing([r for r in facing if min(r[1], 2) == s])
                                         for s in (0, 1, 2)}}


def format_table(summary: dict) -> str:
    lines = [f"agreement of {summary['agent']} with {summary['records']} record(s), {summary['decisions']} decisions"]

    def row(label: str, r: dict) -> str:
        return f"  {label:22s} {r['n']:7d}   " + ("-" if r["agreement"] is None else f"{r['agreement']:.3f}")

    lines.append(row("own turn", summary["own_turn"]))
    for s, r in summary["own_turn_by_shanten"].items():
        lines.append(row(f"  shanten {s}" + ("+" if s == "4" else ""), r))
    lines.append(row("riichi or not", summary["riichi"]))
    lines.append(row("calls (chi/pon/pass)", summary["calls"]))

    def facing(label: str, r: dict) -> str:
        if not r["n"]:
            return row(label, r)
        return row(label, r) + f"   safe discards: recorded {r['recorded_safe']:.3f}, agent {r['agent_safe']:.3f}"

    lines.append(facing("facing a riichi", summary["facing_riichi"]))
    for s, r in summary["facing_riichi_by_shanten"].items():
        lines.append(facing(f"  shanten {s}" + ("+" if s == "2" else ""), r))
    return "\n".join(lines)


@reports_errors
def main(argv: list[str] | None = None) -> int:
    from player.record_options import add_record_options, record_paths
    from player.selfplay import run_pool

    ap = argparse.ArgumentParser(prog="python -m player.agreement", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_record_options(ap, agent_help="registered agent, NAME:KEY=VALUE options allowed (default mdp)",
                       every_help="ask every k-th decision (default 1: all)", records_required=False)
    ap.add_argument("--heldout", action="store_true",
                    help="only the 14 phoenix games that no cnn-bot net trains on (cnn.splits; "
                         "default records: the shared phoenix mjlog files)")
    args = ap.parse_args(argv)
    if args.records is None:
        if not args.heldout:
            raise MahjongError("give --records GLOB, or --heldout for the held-out phoenix games")
        from cnn.splits import PHOENIX_MJLOG

        args.records = [str(PHOENIX_MJLOG / "*")]
    paths = record_paths(args)
    if args.heldout:
        from cnn.splits import split_heldout

        paths = [str(p) for p in split_heldout([Path(p) for p in paths])[1]]
        if not paths:
            raise MahjongError(f"no held-out phoenix game among {' '.join(args.records)}")
    rows: list[tuple] = []
    for part in run_pool(file_agreement, [(p, args.agent, args.every) for p in paths], args.workers,
                         desc="agreement"):
        rows += part
    summary = {"agent": args.agent, "records": len(paths), **summarize(rows)}
    print(json.dumps(summary, indent=1) if args.json else format_table(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
