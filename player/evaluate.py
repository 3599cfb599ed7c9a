"""Evaluate one agent against three copies of another, duplicate-style (Kurita & Hoki Sec. VII).

    python -m player.evaluate --player efficiency --vs random --games 40
    python -m player.evaluate --vs cnn-bot --games 3557          # --player defaults to mdp

Every wall seed is played four times with the player in seat 0, 1, 2 and 3 (a *block*), so
the luck of the walls and of the seat cancels; ``--games`` is rounded up to a multiple of 4.
Game ``g`` belongs to block ``g // 4``, has the player in seat ``g % 4`` and the wall seed
``derive_seed(--seed, g // 4, stream=EVALUATE_WALLS)``: a stream of its own, so that
``evaluate --seed S`` never plays the walls of ``selfplay --seed S`` (a model trained on
self-play is not measured on its training walls).

Files in ``--out`` (default ``runs/eval_<player>_vs_<vs>_seed<S>``):

* ``run.json``: the run's identity (player, opponent, seed, rule, wall stream) and the
  digests of the model files its agents load; ``--resume`` checks them (``player.rundir``)
  and refuses a run whose models changed unless ``--allow-model-change``.
* ``results.jsonl``: one JSON line per finished game, appended and fsynced at once (see
  :func:`game_record`). ``--resume`` reads it, skips the games it holds and plays the rest;
  a last line cut by a kill is dropped (with a warning) and that game replayed; any other
  line that is not a game of this run is an error naming the line. Games are summarized in
  order of their index, so a resumed run reports exactly what an uninterrupted one would.
  Lines are in the order games finished; each game's ``wall_s`` and ``cpu_s`` (its time to
  play) are the only fields that differ between two runs of one seed, on either
  ``--backend`` (``local`` worker processes or ``ray``, ``player.ray_backend``).
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
import time
from collections.abc import Iterable
from pathlib import Path

from game.errors import MahjongError, RecordError
from player import stats
from player.rundir import RUN, check_run, check_seed, model_versions, write_json
from player.selfplay import (EVALUATE_WALLS, add_backend_options, check_agent_name, first_game_played,
                             check_run_options, clear_stale_temps, decision_counts, derive_seed,
                             log_name, play, run_pool, write_log)

RESULTS = "results.jsonl"
SUMMARY = "summary.json"
PLOT = "ranks.png"
LOGS = "logs"
DEFAULT_PLAYER = "mdp"
DEFAULT_OPPONENT = "efficiency"
# Keys that define a run: a resumed run must match them (and its walls and models).
RUN_KEYS = ("player", "vs", "seed", "hanchan")
# Why a run.json without "walls" cannot be continued: its walls came from the self-play stream.
OLDER_RUN = ("a run of an older evaluate, whose walls were those of selfplay --seed; finish it "
             "with the version that began it")


def wall_seed(seed: int, block: int) -> int:
    """The wall seed of ``block`` in a run of ``--seed seed``."""
    return derive_seed(seed, block, stream=EVALUATE_WALLS)


def game_plan(n_games: int, seed: int) -> list[tuple[int, int, int, int]]:
    """(game index, block, wall seed, player seat) for every game of a run of ``n_games``."""
    return [(g, g // 4, wall_seed(seed, g // 4), g % 4) for g in range(n_games)]


def round_up_games(games: int) -> int:
    """The number of games actually played: ``games`` rounded up to whole blocks of 4."""
    if games < 1:
        raise MahjongError(f"--games must be positive, got {games}")
    return -(-games // 4) * 4


def game_record(game: int, block: int, seed: int, player_seat: int, result,
                log: str | None, methods: list | None = None,
                wall_s: float | None = None, cpu_s: float | None = None) -> dict:
    """The JSON line of one finished game.

    ``counts`` are per-seat numbers of hands and the points won and dealt in
    (``stats.count_hand_events``; results written before session 42 have no points); ``methods`` per
    seat how the agent made its decisions in this game (its ``stats``, e.g. the MDP player's
    ``method1`` / ``method2`` / ``rule_based`` / ``error_fallback`` / ``forced``; None for an agent that
    keeps none); ``log`` is the mjai log's path relative to the output directory, or None.
    ``wall_s`` / ``cpu_s``: the seconds the game took to play, wall clock and its worker's
    CPU (building a worker's agents is in its first game): the only fields that differ
    between two runs of one seed. Result files written before them lack both.
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
        "wall_s": None if wall_s is None else round(wall_s, 3),
        "cpu_s": None if cpu_s is None else round(cpu_s, 3),
    }


def _eval_task(task: tuple) -> tuple[dict, list[dict] | None]:
    """Play one game; return its record and, with ``save_logs``, its mjai events. The log
    is written by the caller: on a Ray cluster this runs on a machine without ``--out``."""
    game, block, seed, seat, player, vs, hanchan, save_logs = task
    names = [player if s == seat else vs for s in range(4)]
    before = decision_counts(names)
    wall, cpu = time.perf_counter(), time.process_time()
    result = play(names, seed, [derive_seed(seed, 1000 + s) for s in range(4)], hanchan)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    after = decision_counts(names)
    log = f"{LOGS}/{log_name(game, seed)}" if save_logs else None
    methods = [None if a is None else dict(a - b) for b, a in zip(before, after)]  # this game's counts
    rec = game_record(game, block, seed, seat, result, log, methods, wall, cpu)
    return rec, result.events if save_logs else None


# ----------------------------------------------------------------------------- results file


def read_results(path: Path, *, seed: int | None = None,
                 games: int | None = None) -> tuple[dict[int, dict], int]:
    """Records of ``results.jsonl`` by game index, and the byte length of its valid part.

    A last line that is cut (no newline) or unreadable is dropped: that is what a kill in the
    middle of a write leaves. Any other line that is not a game record raises
    ``RecordError`` naming the file and line, and so does a game index outside
    ``0..games-1`` or, given the run's ``seed`` (and ``games``), a record whose wall seed is
    not that of its game. The first record of a game index wins.
    """
    data = Path(path).read_bytes()
    walls = ({g: s for g, _, s, _ in game_plan(games, seed)}
             if games is not None and seed is not None else {})
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
            problem = _plan_problem(rec, games, walls)
            if problem:
                raise RecordError(problem, path=str(path), position=f"line {lineno}")
            records.setdefault(rec["game"], rec)
        valid = pos
    return records, valid


def _plan_problem(rec: dict, games: int | None, walls: dict[int, int]) -> str | None:
    """Why ``rec`` is not a game of this run (block, seat, wall seed), or None."""
    g = rec["game"]
    if g < 0 or games is not None and g >= games:
        top = f"0..{games - 1} (--games {games})" if games is not None else "0 and up"
        return f"game index {g} out of range {top}"
    if g // 4 != rec["block"] or g % 4 != rec["player_seat"]:
        return (f"game {g} has block {rec['block']} seat {rec['player_seat']}, "
                f"expected block {g // 4} seat {g % 4}")
    if walls and walls[g] != rec["seed"]:
        return f"game {g} has the wall seed {rec['seed']}, expected {walls[g]} (another run's game)"
    return None


def _ints(value: object, n: int | None = None) -> bool:
    return (isinstance(value, list) and (n is None or len(value) == n)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value))


def _parse_record(raw: bytes) -> dict:
    """One line of ``results.jsonl`` as a dict; ValueError saying what is wrong with it."""
    rec = json.loads(raw.decode("utf-8"))  # UnicodeDecodeError is a ValueError
    if not isinstance(rec, dict):
        raise ValueError("not a JSON object")
    missing = [k for k in ("game", "block", "seed", "player_seat", "names", "scores", "ranks",
                           "counts") if k not in rec]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    for key in ("game", "block", "seed", "player_seat"):
        if not _ints([rec[key]]):
            raise ValueError(f"{key} {rec[key]!r} is not an integer")
    names = rec["names"]
    if not (isinstance(names, list) and len(names) == 4 and all(isinstance(n, str) for n in names)):
        raise ValueError(f"names {names!r} are not 4 strings")
    if not _ints(rec["scores"], 4):
        raise ValueError(f"scores {rec['scores']!r} are not 4 integers")
    if not _ints(rec["ranks"], 4) or sorted(rec["ranks"]) != [1, 2, 3, 4]:
        raise ValueError(f"ranks {rec['ranks']!r} are not the places 1..4")
    counts = rec["counts"]
    if not isinstance(counts, dict) or not counts or not all(_ints(v, 4) for v in counts.values()):
        raise ValueError(f"counts {counts!r} are not lists of 4 integers by name")
    for key in ("wall_s", "cpu_s"):  # absent from the results of older versions
        t = rec.get(key)
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not t >= 0):
            raise ValueError(f"{key} {t!r} is not a number of seconds")
    return rec


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
    write_json(path, _finite(obj))


def _append(f, record: dict) -> None:
    f.write(json.dumps(record, separators=(",", ":")) + "\n")
    f.flush()
    os.fsync(f.fileno())


# ----------------------------------------------------------------------------- the run


def evaluate(player: str, vs: str, games: int, out_dir: Path, *, seed: int = 0,
             workers: int | None = None, resume: bool = False, hanchan: bool = False,
             save_logs: bool = False, allow_model_change: bool = False, backend: str = "local",
             ray_address: str | None = None) -> dict:
    """Play (or finish) a duplicate match and write results, summary and plot; return the summary.

    Bad input (an unknown agent, a seed outside 0..2^32-1, a run directory of another run or
    with broken files, a backend not installed or a Ray cluster not there) raises
    MahjongError before anything in ``out_dir`` is changed. ``backend``, ``ray_address``:
    where the games are played (``player.selfplay.run_pool``); the results are the same.
    """
    check_agent_name(player)
    check_agent_name(vs)
    check_seed(seed)
    check_run_options(workers, out_dir, backend)
    n = round_up_games(games)
    if n != games:
        print(f"evaluate: --games {games} rounded up to {n} (whole blocks of 4 seat rotations "
              f"over one wall)", file=sys.stderr)
    out_dir = Path(out_dir)
    results_path = out_dir / RESULTS
    started = results_path.is_file() and results_path.stat().st_size > 0
    if started and not resume:
        raise MahjongError(f"{results_path} already holds results; pass --resume to continue that "
                           f"run or choose another --out")
    run = {"player": player, "vs": vs, "seed": seed, "hanchan": hanchan, "walls": "evaluate",
           "models": model_versions([player, vs])}
    run = check_run(out_dir, run, RUN_KEYS, started=started,
                    allow_model_change=allow_model_change, older=OLDER_RUN)
    done: dict[int, dict] = {}
    valid = 0
    if started:
        done, valid = read_results(results_path, seed=seed, games=n)
    tasks = [(g, b, s, seat, player, vs, hanchan, save_logs)
             for g, b, s, seat in game_plan(n, seed) if g not in done]
    initial = n - len(tasks)
    played = run_pool(_eval_task, tasks, workers, desc=f"{player} vs {vs}", total=n,
                      initial=initial, backend=backend, ray_address=ray_address)
    played = first_game_played(played)
    # Every check passed (a Ray cluster too): from here on the directory is written.
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(out_dir / RUN, run)
    if started and valid < results_path.stat().st_size:
        print(f"evaluate: warning: {results_path}: dropped 1 cut last line (a write stopped by "
              f"a kill); its game is played again", file=sys.stderr)
        with open(results_path, "r+b") as f:  # before appending
            f.truncate(valid)
    clear_stale_temps(out_dir / LOGS)
    if initial:
        print(f"evaluate: resuming, {initial} of {n} games already in {results_path}",
              file=sys.stderr)
    with open(results_path, "a", encoding="utf-8") as f:
        for rec, events in played:
            if events is not None:
                write_log(events, out_dir / rec["log"])  # before the record that names it
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
                    help="worker processes (default: number of CPUs; 1 = no pool); with "
                         "--backend ray, games at a time (default: the cluster's CPUs)")
    ap.add_argument("--seed", type=int, default=0,
                    help="base seed of the walls, 0..2^32-1 (default 0); evaluate draws its walls "
                         "from a stream of its own, never those of selfplay --seed")
    ap.add_argument("--out", type=Path, default=None,
                    help="output directory (default runs/eval_<player>_vs_<vs>_seed<S>)")
    ap.add_argument("--resume", action="store_true",
                    help="continue the run in --out: skip the games results.jsonl holds")
    ap.add_argument("--allow-model-change", action="store_true",
                    help="with --resume: go on although the agents' model files changed since "
                         "the run began (run.json keeps the earlier versions)")
    ap.add_argument("--hanchan", action="store_true", help="south games instead of east-only")
    ap.add_argument("--save-logs", action="store_true",
                    help="also write each game's mjai log (gzip) under OUT/logs/")
    add_backend_options(ap)
    return ap


def main(argv: Iterable[str] | None = None) -> int:
    args = build_parser().parse_args(None if argv is None else list(argv))
    out = args.out or Path("runs") / (f"eval_{args.player}_vs_{args.vs}_seed{args.seed}"
                                      + ("_hanchan" if args.hanchan else ""))
    try:
        summary = evaluate(args.player, args.vs, args.games, out, seed=args.seed,
                           workers=args.workers, resume=args.resume, hanchan=args.hanchan,
                           save_logs=args.save_logs, allow_model_change=args.allow_model_change,
                           backend=args.backend, ray_address=args.ray_address)
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
