"""Evaluate one agent against three copies of another, duplicate-style (Kurita & Hoki Sec. VII).

    python -m player.evaluate --player efficiency --vs random --games 40
    python -m player.evaluate --vs cnn-bot --games 3557          # --player defaults to mdp

Every wall seed is played four times with the player in seat 0, 1, 2 and 3 (a *block*), so
the luck of the walls and of the seat cancels; ``--games`` is rounded up to a multiple of 4.
Game ``g`` belongs to block ``g // 4``, has the player in seat ``g % 4`` and the wall seed
``derive_seed(--seed, g // 4)``.

Files in ``--out`` (default ``runs/eval_<player>_vs_<vs>_seed<S>``):

* ``run.json``: the run's identity (player, opponent, seed, rule); ``--resume`` checks it.
* ``results.jsonl``: one JSON line per finished game, appended and fsynced at once (see
  :func:`game_record`). ``--resume`` reads it, skips the games it holds and plays the rest;
  a last line cut by a kill is dropped and that game replayed. Games are summarized in
  order of their index, so a resumed run reports exactly what an uninterrupted one would.
* ``summary.json``: every number of the report (``player.stats.summarize``).
* ``ranks.png``: the rank distributions of the player and of the opponents.
* ``logs/<game>-<seed>.mjson.gz`` with ``--save-logs``.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from game.errors import MahjongError, RecordError
from player import stats
from player.selfplay import (check_agent_name, check_run_options, clear_stale_temps, decision_counts,
                             derive_seed, log_name, play, run_pool, write_log)

RESULTS = "results.jsonl"
SUMMARY = "summary.json"
RUN = "run.json"
PLOT = "ranks.png"
LOGS = "logs"
DEFAULT_PLAYER = "mdp"
DEFAULT_OPPONENT = "efficiency"
# Keys that define a run: a resumed run must match them.
RUN_KEYS = ("player", "vs", "seed", "hanchan")


def game_plan(n_games: int, seed: int) -> list[tuple[int, int, int, int]]:
    """(game index, block, wall seed, player seat) for every game of a run of ``n_games``."""
    return [(g, g // 4, derive_seed(seed, g // 4), g % 4) for g in range(n_games)]


def round_up_games(games: int) -> int:
    """The number of games actually played: ``games`` rounded up to whole blocks of 4."""
    if games < 1:
        raise MahjongError(f"--games must be positive, got {games}")
    return -(-games // 4) * 4


def game_record(game: int, block: int, seed: int, player_seat: int, result,
                log: str | None, methods: list | None = None) -> dict:
    """The JSON line of one finished game.

    ``counts`` are per-seat numbers of hands (``stats.count_hand_events``); ``methods`` per
    seat how the agent made its decisions in this game (its ``stats``, e.g. the MDP player's
    ``method1`` / ``rule_based`` / ``error_fallback`` / ``forced``; None for an agent that
    keeps none); ``log`` is the mjai log's path relative to the output directory, or None.
    """
    return {
        "game": game,
        "block": block,
        "seed": seed,
        "player_seat": player_seat,
        "names": list(result.names),
        "scores": [int(s) for s in result.scores],
        "ranks": [int(r) for r in result.ranks],
        "counts": stats.count_hand_events(result.events),
        "methods": methods or [None] * 4,
        "log": log,
    }


def _named(events: list[dict], names: list[str]) -> list[dict]:
    """The events with the agents' names in ``start_game`` (as mjai logs carry them)."""
    if events and events[0].get("type") == "start_game" and "names" not in events[0]:
        return [{**events[0], "names": list(names)}] + list(events[1:])
    return events


def _eval_task(task: tuple) -> dict:
    game, block, seed, seat, player, vs, hanchan, out_dir, save_logs = task
    names = [player if s == seat else vs for s in range(4)]
    before = decision_counts(names)
    result = play(names, seed, [derive_seed(seed, 1000 + s) for s in range(4)], hanchan)
    after = decision_counts(names)
    log = None
    if save_logs:
        log = f"{LOGS}/{log_name(game, seed)}"
        write_log(_named(result.events, names), Path(out_dir) / log)
    methods = [None if a is None else dict(a - b) for b, a in zip(before, after)]  # this game's counts
    return game_record(game, block, seed, seat, result, log, methods)


# ----------------------------------------------------------------------------- results file


def read_results(path: Path) -> tuple[dict[int, dict], int]:
    """Records of ``results.jsonl`` by game index, and the byte length of its valid part.

    A last line that is cut (no newline) or unreadable is dropped: that is what a kill in the
    middle of a write leaves. Any other unreadable line raises ``RecordError`` naming the file
    and line. The first record of a game index wins.
    """
    data = Path(path).read_bytes()
    records: dict[int, dict] = {}
    pos = valid = 0
    lineno = 0
    while pos < len(data):
        lineno += 1
        end = data.find(b"\n", pos)
        if end == -1:
            break  # a write cut by a kill before its newline: the game is played again
        raw = data[pos:end]
        pos = end + 1
        if raw.strip():
            try:
                rec = _parse_record(raw)
            except ValueError as e:
                if pos >= len(data):
                    break  # an unreadable last line: also what a kill can leave
                raise RecordError(f"unreadable result ({e})", path=str(path),
                                  position=f"line {lineno}") from None
            records.setdefault(int(rec["game"]), rec)
        valid = pos
    return records, valid


def _parse_record(raw: bytes) -> dict:
    rec = json.loads(raw.decode("utf-8"))  # UnicodeDecodeError is a ValueError
    if not isinstance(rec, dict):
        raise ValueError("not a JSON object")
    missing = [k for k in ("game", "block", "seed", "player_seat", "names", "scores", "ranks",
                           "counts") if k not in rec]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    if not isinstance(rec["game"], int) or isinstance(rec["game"], bool):
        raise ValueError(f"game index {rec['game']!r} is not an integer")
    return rec


def read_run(out_dir: Path) -> dict:
    """The ``run.json`` of a run directory; RecordError naming it when unreadable."""
    run_path = Path(out_dir) / RUN
    try:
        return json.loads(run_path.read_text())
    except ValueError as e:
        raise RecordError(f"unreadable run description ({e})", path=str(run_path)) from e


def check_run(out_dir: Path, run: Mapping, resume: bool) -> None:
    """Write ``run.json`` for a new run; on ``--resume``, check the directory holds this run."""
    run_path = out_dir / RUN
    results = out_dir / RESULTS
    if results.exists() and results.stat().st_size > 0 and not resume:
        raise MahjongError(f"{results} already holds results; pass --resume to continue that "
                           f"run or choose another --out")
    if run_path.exists() and results.exists():
        old = read_run(out_dir)
        diff = [k for k in RUN_KEYS if old.get(k) != run.get(k)]
        if diff:
            have = ", ".join(f"{k}={old.get(k)!r}" for k in diff)
            raise MahjongError(f"{run_path}: the results there come from another run ({have}); "
                               f"choose another --out")
    _write_json(run_path, dict(run))


def _finite(obj):
    """``obj`` with NaN and infinities as None: summary.json stays strict JSON."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _write_json(path: Path, obj) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(_finite(obj), indent=2, allow_nan=False) + "\n")
    os.replace(tmp, path)


def _append(f, record: dict) -> None:
    f.write(json.dumps(record, separators=(",", ":")) + "\n")
    f.flush()
    os.fsync(f.fileno())


# ----------------------------------------------------------------------------- the run


def evaluate(player: str, vs: str, games: int, out_dir: Path, *, seed: int = 0,
             workers: int | None = None, resume: bool = False, hanchan: bool = False,
             save_logs: bool = False) -> dict:
    """Play (or finish) a duplicate match and write results, summary and plot; return the summary."""
    check_agent_name(player)
    check_agent_name(vs)
    check_run_options(workers, out_dir)
    n = round_up_games(games)
    if n != games:
        print(f"evaluate: --games {games} rounded up to {n} (whole blocks of 4 seat rotations "
              f"over one wall)", file=sys.stderr)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    check_run(out_dir, {"player": player, "vs": vs, "seed": seed, "hanchan": hanchan}, resume)
    clear_stale_temps(out_dir / LOGS)

    results_path = out_dir / RESULTS
    done: dict[int, dict] = {}
    if resume and results_path.exists():
        done, valid = read_results(results_path)
        if valid < results_path.stat().st_size:
            with open(results_path, "r+b") as f:  # drop the cut last line before appending
                f.truncate(valid)
    plan = game_plan(n, seed)
    for g, _, s, seat in plan:
        rec = done.get(g)
        if rec is not None and (int(rec["seed"]) != s or int(rec["player_seat"]) != seat):
            raise RecordError(f"game {g} has seed {rec['seed']} seat {rec['player_seat']}, "
                              f"expected {s} seat {seat}", path=str(results_path))
    tasks = [(g, b, s, seat, player, vs, hanchan, str(out_dir), save_logs)
             for g, b, s, seat in plan if g not in done]
    initial = n - len(tasks)
    if initial:
        print(f"evaluate: resuming, {initial} of {n} games already in {results_path}",
              file=sys.stderr)
    with open(results_path, "a", encoding="utf-8") as f:
        for rec in run_pool(_eval_task, tasks, workers or os.cpu_count() or 1,
                            desc=f"{player} vs {vs}", total=n, initial=initial):
            _append(f, rec)
            done[int(rec["game"])] = rec

    summary = stats.summarize([done[g] for g in range(n)], hanchan=hanchan)
    summary["seed"] = seed
    _write_json(out_dir / SUMMARY, summary)
    stats.plot_ranks(summary, out_dir / PLOT)
    return summary


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m player.evaluate",
        description="Play one agent against three copies of another over the same walls with "
                    "the seats rotated (4 games per wall seed), then report rank rates, mean "
                    "rank +- SE, a t-test of the rank difference over wall seeds, Tenhou rank "
                    "points and per-hand win/deal-in/riichi/call rates.")
    ap.add_argument("--player", default=DEFAULT_PLAYER,
                    help=f"the agent under test (default {DEFAULT_PLAYER})")
    ap.add_argument("--vs", default=DEFAULT_OPPONENT,
                    help=f"the opponent, three copies (default {DEFAULT_OPPONENT})")
    ap.add_argument("--games", type=int, default=400,
                    help="number of games, rounded up to a multiple of 4 (default 400)")
    ap.add_argument("--workers", type=int, default=None,
                    help="worker processes (default: number of CPUs; 1 = no pool)")
    ap.add_argument("--seed", type=int, default=0, help="base seed of the walls (default 0)")
    ap.add_argument("--out", type=Path, default=None,
                    help="output directory (default runs/eval_<player>_vs_<vs>_seed<S>)")
    ap.add_argument("--resume", action="store_true",
                    help="continue the run in --out: skip the games results.jsonl holds")
    ap.add_argument("--hanchan", action="store_true", help="south games instead of east-only")
    ap.add_argument("--save-logs", action="store_true",
                    help="also write each game's mjai log (gzip) under OUT/logs/")
    return ap


def main(argv: Iterable[str] | None = None) -> int:
    args = build_parser().parse_args(None if argv is None else list(argv))
    out = args.out or Path("runs") / (f"eval_{args.player}_vs_{args.vs}_seed{args.seed}"
                                      + ("_hanchan" if args.hanchan else ""))
    try:
        summary = evaluate(args.player, args.vs, args.games, out, seed=args.seed,
                           workers=args.workers, resume=args.resume, hanchan=args.hanchan,
                           save_logs=args.save_logs)
    except MahjongError as e:
        print(f"evaluate: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"evaluate: interrupted; continue with the same command plus --resume "
              f"(--out {out})", file=sys.stderr)
        return 130
    print(stats.format_table(summary))
    print(f"\nwrote {out / RESULTS}, {out / SUMMARY}, {out / PLOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
