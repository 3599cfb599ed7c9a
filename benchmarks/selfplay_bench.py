"""Self-play speed: east-only games of four agents, spread over worker processes.

    python benchmarks/selfplay_bench.py --games 200 --workers 2
    python benchmarks/selfplay_bench.py --agent random --json

Prints the median / p90 / p99 wall time per game, games per second and decisions per
second (choices asked of agents, passes included) over the whole run, wall clock; and the
CPU time per game, whose rate is what idle cores would give on a machine shared with
other jobs (the wall-clock figures then understate the code's speed). The goal for
four ``efficiency`` agents is >= 10 games/s on 2 cores. Each worker plays one game first
to load the numba kernels; that warm-up is not timed.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import time

from tqdm import tqdm

from game.errors import MahjongError
from game.match import play_game
from player.registry import AGENTS, make_agent

_AGENTS = []


def _init(agent: str) -> None:
    _AGENTS[:] = [make_agent(agent, seed=i) for i in range(4)]
    play_game(_AGENTS, 10**9)  # warm-up: numba kernels, tables


def _play(seed: int) -> tuple[float, float, int]:
    start, cpu = time.perf_counter(), time.process_time()
    result = play_game(_AGENTS, seed)
    return time.perf_counter() - start, time.process_time() - cpu, result.decisions


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(agent: str, games: int, workers: int, progress: bool) -> dict:
    ctx = mp.get_context("fork")
    with ctx.Pool(workers, initializer=_init, initargs=(agent,)) as pool:
        pool.map(_noop, range(workers))  # wait until every worker is warm
        start = time.perf_counter()
        out = list(tqdm(pool.imap_unordered(_play, range(games)), total=games,
                        disable=not progress, desc="games"))
        wall = time.perf_counter() - start
    times = [t for t, _, _ in out]
    cpu = [c for _, c, _ in out]
    decisions = sum(d for _, _, d in out)
    return {
        "agent": agent, "games": games, "workers": workers, "wall_s": round(wall, 3),
        "games_per_second": games / wall, "decisions_per_second": decisions / wall,
        "game_s_median": statistics.median(times), "game_s_p90": percentile(times, 0.9),
        "game_s_p99": percentile(times, 0.99), "decisions_per_game": decisions / games,
        # CPU seconds per game in the workers: what the games cost when the cores are not
        # shared with other jobs; workers / mean CPU time is the rate on idle cores.
        "cpu_s_median": statistics.median(cpu), "cpu_s_p90": percentile(cpu, 0.9),
        "cpu_games_per_second": workers * games / sum(cpu),
    }


def _noop(_: int) -> None:
    time.sleep(0.05)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--agent", default="efficiency", choices=sorted(AGENTS),
                        help="the agent in all four seats (default efficiency)")
    parser.add_argument("--json", action="store_true", help="print one JSON object only")
    args = parser.parse_args(argv)
    try:
        if args.games < 1 or args.workers < 1:
            raise MahjongError("--games and --workers must be at least 1")
        stats = run(args.agent, args.games, args.workers, progress=not args.json)
    except MahjongError as exc:
        print(f"selfplay_bench: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(stats))
    else:
        print(f"{stats['games']} east-only games of 4 {stats['agent']} agents on "
              f"{stats['workers']} workers in {stats['wall_s']:.1f} s")
        print(f"per game: median {stats['game_s_median'] * 1000:.0f} ms, "
              f"p90 {stats['game_s_p90'] * 1000:.0f} ms, p99 {stats['game_s_p99'] * 1000:.0f} ms")
        print(f"{stats['games_per_second']:.2f} games/s, "
              f"{stats['decisions_per_second']:.0f} decisions/s "
              f"({stats['decisions_per_game']:.0f} decisions/game)")
        print(f"CPU per game: median {stats['cpu_s_median'] * 1000:.0f} ms, "
              f"p90 {stats['cpu_s_p90'] * 1000:.0f} ms; on {stats['workers']} idle cores "
              f"that is {stats['cpu_games_per_second']:.1f} games/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
