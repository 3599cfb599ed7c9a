"""Review of a recorded game: every decision of one seat beside the MDP player's values.

    python -m player.review ../shared/data/phoenix/mjlog/GAME.xml --seat 0 --out report.html
    python -m player.review GAME.json --name NAME --kyoku E1,S3 --min-loss 0.02 --json
    python -m player.review '../shared/data/phoenix/mjlog/*.xml' --all-seats --workers 2 --out reviews/
    python -m player.review --agreement '../shared/data/phoenix/mjlog/*.xml' --agent efficiency

For each decision of the seat under review (discard, riichi, call or pass, where it had a
choice), the recorded action is shown beside the player's best, with every legal action's
expected final rank, its chances of winning, dealing in, another's win and washout, and for
discards the chance that the tile is ronned at once: the numbers of :mod:`player.analyze`,
the ones the player uses to play. The **loss** of a decision is the expected final rank of
the recorded action minus that of the best (0 when they agree; ranks run 1..4, lower is
better). Per hand and per game: agreement (the recorded action is the best: same type, the
same kind of tile for a discard), mean loss and the worst decisions.

Decisions the player does not value are counted, not hidden: ``rule_based`` (4 or more
shanten: the player plays the efficiency agent's move there), ``forced`` (a win on offer, a
riichi hand's draw, the discard of a riichi just declared), and recorded actions that are
not valued (kans: spec A9).

Several records (paths, globs or a folder) or ``--all-seats`` make a batch: one report per
record and seat (HTML, or JSON with ``--json``) in the folder ``--out``, and ``index.html`` /
``index.json`` listing each with its agreement and mean loss; ``--workers`` processes share
the work. A record that cannot be read or replayed is named on one line and the batch goes
on; the exit status is then 2. Every file is written whole or not at all.

``--agreement GLOB`` is the other batch mode: any registered agent's agreement with the
recorded players' choices (own turn by shanten, riichi, calls) over many records, as
:mod:`player.agreement` computes it.
"""
from __future__ import annotations

import argparse
import glob
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from game.cli import reports_errors, write_atomic
from game.errors import MahjongError, RecordError
from game.records import player_names, read_events

WORST = 10  # decisions listed as the worst of a game (3 per hand)


def kyoku_labels(events: list[dict]) -> list[tuple[int, str]]:
    """``(event index, label)`` of every ``start_kyoku``: ``E1``, ``S3``, ``E2-1`` (honba 1)."""
    out = []
    for i, e in enumerate(events):
        if e.get("type") == "start_kyoku":
            honba = int(e.get("honba", 0))
            out.append((i, f"{e['bakaze']}{e['kyoku']}" + (f"-{honba}" if honba else "")))
    return out


def _wanted(label: str, kyoku: set[str] | None) -> bool:
    return kyoku is None or label in kyoku or label.split("-")[0] in kyoku


def _table(state) -> dict:
    """What the seat saw at the decision, as mjai names: its hand, every river and meld."""
    from game.tiles import id_to_mjai

    def river(seat: int) -> list[dict]:
        return [{"pai": id_to_mjai(d.tile), "tsumogiri": d.tsumogiri, "called": d.called,
                 "riichi": d.riichi} for d in state.discards[seat]]

    return {"hand": [id_to_mjai(t) for t in sorted(state.hand_ids)],
            "drawn": None if state.drawn is None else id_to_mjai(state.drawn),
            "rivers": [river(s) for s in range(4)],
            "melds": [[[id_to_mjai(t) for t in m.tiles] for m in state.melds[s]] for s in range(4)],
            "riichi": list(state.riichi), "dora_indicators": [id_to_mjai(t) for t in state.dora_indicators],
            "scores": list(state.scores), "dealer": int(state.dealer)}


def _entry(res: dict, d, label: str) -> dict:
    """A decision of the review: :func:`player.analyze.value_decision`'s result with the
    recorded action's index, the agreement, the loss and the table."""
    from game.decisions import recorded_index
    from player.agreement import same_choice

    actual = recorded_index(d.legal, d.chosen)
    best = res["best"]
    agree = loss = None
    if best is not None and actual is not None:
        agree = same_choice(d.legal[best], d.legal[actual])
        v_best, v_actual = res["actions"][best]["value"], res["actions"][actual]["value"]
        if v_actual is not None:
            # The best may trail a recorded choice by its tie-breaks (red fives, ``tie``): no loss.
            loss = 0.0 if agree else round(max(0.0, v_best - v_actual), 6)
    return {**res, "kyoku": label, "actual": actual, "agree": agree, "loss": loss, "table": _table(d.state)}


def _summary(entries: list[dict]) -> dict:
    """Agreement and loss over the decisions that were valued, with the count of the rest."""
    valued = [e for e in entries if e["agree"] is not None]
    lossy = [e for e in valued if e["loss"] is not None]
    worst = sorted(lossy, key=lambda e: -e["loss"])[:WORST]
    return {"decisions": len(entries), "valued": len(valued),
            "agreement": round(sum(e["agree"] for e in valued) / len(valued), 4) if valued else None,
            "mean_loss": round(sum(e["loss"] for e in lossy) / len(lossy), 5) if lossy else None,
            "total_loss": round(sum(e["loss"] for e in lossy), 5),
            "by_method": dict(Counter(e["method"] for e in entries)),
            "recorded_not_valued": len(valued) - len(lossy),
            "worst": [{"kyoku": e["kyoku"], "event_index": e["event_index"], "loss": e["loss"]} for e in worst if e["loss"] > 0]}


def review(events: list[dict[str, Any]], seat: int, *, kyoku: set[str] | None = None, agent=None,
           progress: bool = False) -> dict:
    """Review ``seat``'s decisions in ``events`` (a record's mjai events).

    ``kyoku``: labels of the hands to review (``{"E1", "S3-1"}``; a label without honba takes
    every honba), all by default. ``agent``: the :class:`~player.agents.mdp.MdpAgent` whose
    values are used (by default one for the record's length). Returns plain JSON data: the
    seat and its name, ``decisions`` (see :func:`player.analyze.analyze`, plus ``kyoku``,
    ``actual``, ``agree``, ``loss`` and ``table``), ``hands`` (a summary per hand) and
    ``summary`` (the game's).
    """
    from bisect import bisect_right

    from game.decisions import iter_decisions
    from player.analyze import default_player, value_decision

    if not 0 <= int(seat) < 4:
        raise MahjongError(f"seat {seat} is outside 0..3")
    labels = kyoku_labels(events)
    if kyoku is not None:
        unknown = {k for k in kyoku if not any(_wanted(lab, {k}) for _, lab in labels)}
        if unknown:
            raise MahjongError(f"no hand {', '.join(sorted(unknown))} in this record; it has {', '.join(l for _, l in labels)}")
    starts = [i for i, _ in labels]
    player = default_player(events, agent)
    chosen = []
    for d in iter_decisions(events, seats=[int(seat)]):
        k = bisect_right(starts, d.index) - 1
        if len(d.legal) > 1 and k >= 0 and _wanted(labels[k][1], kyoku):
            chosen.append((d, labels[k][1]))
    entries = []
    bar = _bar(len(chosen), progress)
    for d, label in chosen:
        res = value_decision(player, d)
        bar.update(1)
        if res["method"] != "forced":
            entries.append(_entry(res, d, label))
    bar.close()
    names = player_names(events)
    hands = [{"kyoku": lab, **_summary([e for e in entries if e["kyoku"] == lab])}
             for lab in dict.fromkeys(e["kyoku"] for e in entries)]
    return {"seat": int(seat), "name": names[int(seat)], "names": names, "hanchan": bool(player.hanchan),
            "tie": player.tie,
            "forced": len(chosen) - len(entries), "decisions": entries, "hands": hands, "summary": _summary(entries)}


def _bar(total: int, shown: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc="review", unit="decision", file=sys.stderr, disable=not shown)


def seat_of(events: list[dict], name: str) -> int:
    """The seat of the player called ``name`` in the record's ``start_game``."""
    names = player_names(events)
    if name not in names:
        raise MahjongError(f"no player {name!r} in this record; its players are {names}")
    return names.index(name)


def text_report(rev: dict, min_loss: float = 0.0) -> str:
    """The review as plain text: the game's and each hand's figures, then the decisions whose
    loss is at least ``min_loss`` (the worst first)."""
    s = rev["summary"]
    lines = [f"seat {rev['seat']} ({rev['name'] or 'no name'}): {s['valued']} decisions valued of {s['decisions']} "
             f"({_methods(s)}), {rev['forced']} forced",
             f"agreement {fmt(s['agreement'], 3)}, mean loss {fmt(s['mean_loss'], 4)} rank, total loss {s['total_loss']:.3f}",
             "", f"{'hand':8s} {'valued':>6s} {'agree':>6s} {'mean loss':>10s} {'total':>8s}"]
    for h in rev["hands"]:
        lines.append(f"{h['kyoku']:8s} {h['valued']:6d} {fmt(h['agreement'], 3):>6s} "
                     f"{fmt(h['mean_loss'], 4):>10s} {h['total_loss']:8.3f}")
    shown = sorted((e for e in rev["decisions"] if e["loss"] is not None and e["loss"] >= min_loss and e["loss"] > 0),
                   key=lambda e: -e["loss"])
    lines += ["", f"decisions with a loss >= {min_loss}: {len(shown)}"]
    for e in shown:
        a, b = e["actions"][e["actual"]], e["actions"][e["best"]]
        lines.append(f"  {e['kyoku']:6s} event {e['event_index']:4d}  {describe(a['action']):16s} "
                     f"E[rank] {a['expected_rank']:.3f}  best {describe(b['action']):16s} "
                     f"{b['expected_rank']:.3f}  loss {e['loss']:.4f}")
    return "\n".join(lines)


def _methods(s: dict) -> str:
    return ", ".join(f"{m} {n}" for m, n in sorted(s["by_method"].items()))


def fmt(x: float | None, digits: int) -> str:
    """``x`` with ``digits`` decimals, ``-`` for None (nothing valued)."""
    return "-" if x is None else f"{x:.{digits}f}"


def describe(action: dict) -> str:
    """An action in a few characters: ``dahai 5mr``, ``reach``, ``pon 7p``, ``pass``."""
    t = action["type"]
    if t == "none":
        return "pass"
    return f"{t} {action['pai']}" if "pai" in action else t


def filter_decisions(rev: dict, min_loss: float) -> dict:
    """The review with only the decisions whose loss is at least ``min_loss`` (the summaries
    keep every decision)."""
    if min_loss <= 0:
        return rev
    return {**rev, "decisions": [e for e in rev["decisions"] if e["loss"] is not None and e["loss"] >= min_loss]}


def check_out(out: str | None) -> Path | None:
    """``--out`` checked before any work: not a folder, its folder exists."""
    if out is None:
        return None
    p = Path(out)
    if p.is_dir():
        raise MahjongError(f"--out {out} is a folder; name a file (report.html or report.json), "
                           "or review several records or --all-seats into it")
    if not p.parent.is_dir():
        raise MahjongError(f"--out {out}: folder {p.parent} does not exist")
    return p


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m player.review", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", nargs="*", metavar="RECORD",
                    help="a record (Tenhou mjlog XML, tenhou.net/6 JSON or mjai JSONL, plain or gzip); "
                    "several, a glob or a folder: a batch into --out DIR")
    who = ap.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, help="seat under review, 0..3 (0 = the first dealer)")
    who.add_argument("--name", help="player under review, by the name in the record")
    who.add_argument("--all-seats", action="store_true", help="every seat: a batch into --out DIR")
    ap.add_argument("--kyoku", help="hands to review, e.g. E1,S3 or E2-1 (with honba); default all")
    ap.add_argument("--min-loss", type=float, default=0.0,
                    help="list only decisions losing at least this much expected rank (summaries keep all)")
    ap.add_argument("--out", help="write the report here: .html (a self-contained page) or .json; "
                    "a batch: the folder of the reports and index.html")
    ap.add_argument("--json", action="store_true", help="JSON instead of the text report (stdout, or --out); "
                    "a batch: JSON reports")
    ap.add_argument("--workers", type=int, default=1, help="a batch or --agreement: worker processes (default 1)")
    ap.add_argument("--agent", default="mdp", help="the valuing agent: mdp with options (mdp:hazard=0); "
                    "with --agreement any registered agent")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    batch = ap.add_argument_group("batch agreement")
    batch.add_argument("--agreement", nargs="+", metavar="GLOB",
                       help="records: print the agent's agreement with the recorded choices instead of a review")
    batch.add_argument("--every", type=int, default=1, help="with --agreement: ask every k-th decision")
    return ap


def _agreement(args: argparse.Namespace) -> int:
    from player import agreement

    argv = ["--records", *args.agreement, "--agent", args.agent, "--every", str(args.every),
            "--workers", str(args.workers)] + (["--json"] if args.json else [])
    return agreement.main.__wrapped__(argv)


def _valuing_agent(spec: str, hanchan: bool):
    """The MDP player of ``--agent`` (options kept), valuing the record's game length unless
    the options say it."""
    from player.registry import make_agent

    name, _, opts = spec.partition(":")
    if name != "mdp":
        raise MahjongError(f"--agent {spec}: a review needs an agent that values every action (mdp)")
    if "hanchan=" not in opts:
        opts = ",".join(o for o in (opts, f"hanchan={int(hanchan)}") if o)
    return make_agent(f"mdp:{opts}")


def _kyoku(spec: str | None) -> set[str] | None:
    return None if spec is None else {k.strip() for k in spec.split(",") if k.strip()}


def _review_record(path: str, events: list[dict], seat: int, args: argparse.Namespace, agent, progress: bool) -> dict:
    """The (filtered) review of ``seat`` in the record ``path``; replay errors name the file."""
    try:
        rev = review(events, seat, kyoku=_kyoku(args.kyoku), agent=agent, progress=progress)
    except RecordError as err:  # the replay names the event, the reader the file
        if err.path is not None:
            raise
        raise RecordError(str(err), path=path) from None
    return {"record": str(path), **filter_decisions(rev, args.min_loss)}


# This process's valuing agents by (--agent, hanchan): a batch worker builds each once.
_AGENTS: dict[tuple[str, bool], Any] = {}


def _batch_task(task: tuple[str, int | None, str, argparse.Namespace]) -> dict:
    """One report of a batch (run in a worker): the record ``path``'s ``seat`` (or the seat of
    ``args.name``) reviewed and written to ``out``; its index row, or ``error`` (one line)."""
    from player.review_html import html_report
    from regressors.datasets import is_hanchan

    path, seat, out, args = task
    row: dict[str, Any] = {"record": path, "seat": seat, "report": Path(out).name}
    try:
        events = read_events(path)
        if seat is None:
            seat = row["seat"] = seat_of(events, args.name)
        hanchan = is_hanchan(events)
        agent = _AGENTS.get((args.agent, hanchan))
        if agent is None:
            agent = _AGENTS[(args.agent, hanchan)] = _valuing_agent(args.agent, hanchan)
        rev = _review_record(path, events, seat, args, agent, progress=False)
    except MahjongError as err:
        msg = str(err)
        return {**row, "error": msg if path in msg else f"{path}: {msg}"}
    write_atomic(out, json.dumps(rev, indent=1) if args.json else html_report(rev))
    s = rev["summary"]
    return {**row, "name": rev["name"], "hanchan": rev["hanchan"], "valued": s["valued"],
            "with_loss": s["valued"] - s["recorded_not_valued"], "agreement": s["agreement"],
            "mean_loss": s["mean_loss"], "total_loss": s["total_loss"]}


def _batch(args: argparse.Namespace) -> int:
    """Review every record and seat asked into the folder ``--out``, then write its index."""
    from game.records import iter_record_files
    from tqdm import tqdm

    from player.review_html import html_index
    from player.selfplay import check_run_options, run_pool

    if args.out is None:
        raise MahjongError("a batch review writes into a folder: give --out DIR")
    if args.seat is None and args.name is None and not args.all_seats:
        raise MahjongError("choose the seats: --all-seats, --seat 0..3 or --name NAME")
    if args.seat is not None and not 0 <= args.seat < 4:
        raise MahjongError(f"seat {args.seat} is outside 0..3")
    _valuing_agent(args.agent, False)  # a bad --agent fails before any work
    folder = Path(args.out)
    check_run_options(args.workers, folder)  # --workers >= 1, --out not a file
    if not folder.parent.is_dir():
        raise MahjongError(f"--out {args.out}: folder {folder.parent} does not exist")
    paths = [str(p) for p in iter_record_files(args.records)]
    folder.mkdir(exist_ok=True)
    seats = [args.seat] if args.seat is not None else ([None] if args.name is not None else range(4))
    ext = ".json" if args.json else ".html"
    stems: Counter = Counter()
    tasks = []
    for path in paths:
        stem = Path(path).name.split(".")[0]
        stems[stem] += 1
        if stems[stem] > 1:  # two records of one name from different folders
            stem = f"{stem}-{stems[stem]}"
        for seat in seats:
            who = f"_seat{seat}" if seat is not None else ""
            tasks.append((path, seat, str(folder / f"{stem}{who}{ext}"), args))
    rows, failed = [], {}
    for row in run_pool(_batch_task, tasks, args.workers, desc="review", unit="report"):
        if "error" not in row:
            rows.append(row)
        elif row["record"] not in failed:  # one line a file, not one a seat
            failed[row["record"]] = row["error"]
            tqdm.write(f"error: {row['error']}", file=sys.stderr)
    order = {p: i for i, p in enumerate(paths)}
    rows.sort(key=lambda r: (order[r["record"]], r["seat"]))
    index = {"reports": rows, "failed": [{"record": p, "error": e} for p, e in sorted(failed.items(), key=lambda kv: order[kv[0]])],
             **pooled(rows)}
    write_atomic(folder / "index.json", json.dumps(index, indent=1))
    write_atomic(folder / "index.html", html_index(index))
    print(f"{folder / 'index.html'}: {len(rows)} reports of {len(paths)} records, agreement "
          f"{fmt(index['agreement'], 3)}, mean loss {fmt(index['mean_loss'], 4)}"
          + (f"; {len(failed)} record{'s' if len(failed) > 1 else ''} failed" if failed else ""))
    return 2 if failed else 0


def pooled(rows: list[dict]) -> dict:
    """Agreement and mean loss over every decision of the index's reports: each report
    weighted by its decisions valued (by those with a loss, for the loss)."""
    valued = sum(r["valued"] for r in rows)
    agree = sum(r["agreement"] * r["valued"] for r in rows if r["valued"])
    lossy = sum(r["with_loss"] for r in rows)
    return {"valued": valued, "agreement": round(agree / valued, 4) if valued else None,
            "mean_loss": round(sum(r["total_loss"] for r in rows) / lossy, 5) if lossy else None}


@reports_errors
def main(argv: list[str] | None = None) -> int:
    from player.review_html import html_report
    from regressors.datasets import is_hanchan

    args = _parser().parse_args(argv)
    if args.agreement:
        return _agreement(args)
    if not args.records:
        raise MahjongError("name a record to review (or --agreement GLOB)")
    record = args.records[0]
    if args.all_seats or len(args.records) > 1 or Path(record).is_dir() or glob.has_magic(record):
        return _batch(args)
    out = check_out(args.out)
    events = read_events(record)
    seat = seat_of(events, args.name) if args.name is not None else args.seat
    if seat is None:
        raise MahjongError(f"choose a seat: --seat 0..3 or --name, one of {player_names(events)}")
    rev = _review_record(record, events, seat, args, _valuing_agent(args.agent, is_hanchan(events)),
                         progress=not args.quiet)
    if out is not None and out.suffix.lower() in (".html", ".htm") and not args.json:
        write_atomic(out, html_report(rev))
    elif out is not None:
        write_atomic(out, json.dumps(rev, indent=1))
    elif args.json:
        print(json.dumps(rev, indent=1))
    if not args.json or out is not None:
        print(text_report(rev, max(args.min_loss, 1e-9)) if out is None else
              f"{out}: {rev['summary']['valued']} decisions valued, agreement {fmt(rev['summary']['agreement'], 3)}, "
              f"mean loss {fmt(rev['summary']['mean_loss'], 4)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
