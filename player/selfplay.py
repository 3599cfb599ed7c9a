"""Self-play: many games of four copies of one agent, one gzip mjai log per game.

    python -m player.selfplay --agent efficiency --games 1000 --out runs/selfplay

Game ``i`` of a run with ``--seed S`` uses the wall seed ``derive_seed(S, i)`` and is written
to ``DIR/<i:06d>-<wall seed>.mjson.gz`` through a temporary file and a rename, so a killed run
leaves no half-written log; running the same command again skips the logs that exist.
``DIR/run.json`` (``player.rundir``) records the run and its agent's model versions: a run is
continued only by the same command, and not after the models changed. The
logs are training records for the estimators and cnn-bot (DESIGN.md, "Records for training").

This module also holds the pieces ``player.evaluate`` shares: seed derivation, agent checks,
atomic log writing and the worker pool.
"""
from __future__ import annotations

import argparse
import itertools
import multiprocessing as mp
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import numpy as np

from game.errors import MahjongError
from player.rundir import RUN, SEED_MAX, check_run, check_seed, model_versions, write_json

LOG_SUFFIX = ".mjson.gz"
TMP_DIR = ".tmp"
EVALUATE_WALLS = 1  # the stream of evaluate's wall seeds; self-play's is the plain one (0)
BACKENDS = ("local", "ray")  # where games are played (run_pool)
LOG_EVERY_S = 60.0  # without a terminal (a run's log file): a progress line at most this often


# ----------------------------------------------------------------------------- shared pieces


def derive_seed(base: int, *keys: int, stream: int = 0) -> int:
    """A well-mixed 31-bit seed from a base seed and indices (wall seeds, agent seeds).

    Hashing (numpy's SeedSequence) instead of ``base + index`` keeps the runs of nearby base
    seeds from sharing walls. ``stream`` > 0 draws from a stream of its own (a spawn key,
    which no plain list of keys can equal): ``player.evaluate`` takes its walls from
    :data:`EVALUATE_WALLS`, so it never plays the walls self-play trains on. ``base`` and
    ``keys`` must be in 0..2^32-1 (callers check user seeds with ``rundir.check_seed``).
    """
    if not 0 <= base <= SEED_MAX:
        raise ValueError(f"base seed {base} outside 0..{SEED_MAX}")
    spawn_key = (stream,) if stream else ()
    return int(np.random.SeedSequence([int(base), *map(int, keys)], spawn_key=spawn_key)
               .generate_state(1, dtype=np.uint32)[0] >> 1)


def check_run_options(workers: int | None, out_dir: Path, backend: str = "local") -> None:
    """``--workers`` must be positive, ``--out`` a directory (or not there yet) and the
    ``--backend`` installed: MahjongError otherwise, before anything is written."""
    if workers is not None and int(workers) < 1:
        raise MahjongError(f"--workers must be >= 1, got {workers}")
    if Path(out_dir).exists() and not Path(out_dir).is_dir():
        raise MahjongError(f"--out {out_dir} is a file, not a directory")
    if backend == "ray":
        from player import ray_backend

        ray_backend.require()
    elif backend != "local":
        raise MahjongError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")


def check_agent_name(name: str) -> None:
    """Raise the registry's MahjongError (which lists the known agents) for an unknown name
    or malformed options (``NAME:KEY=VALUE,...``)."""
    from player.registry import AGENTS, make_agent, parse_agent_spec

    base, _ = parse_agent_spec(name)
    if base not in AGENTS:
        make_agent(name)  # raises, naming the known agents
        raise MahjongError(f"unknown agent {name!r}")  # a registry that did not raise


def write_log(events: Sequence[dict], path: Path) -> None:
    """Write an mjai log (gzip JSON lines) atomically: a temp file in ``DIR/.tmp``, then rename."""
    path = Path(path)
    tmp_dir = path.parent / TMP_DIR
    tmp_dir.mkdir(parents=True, exist_ok=True)
    tmp = tmp_dir / f"{path.stem}.{os.getpid()}{LOG_SUFFIX}"
    from game.records import write_mjai

    write_mjai(list(events), tmp)
    os.replace(tmp, path)


def clear_stale_temps(out_dir: Path) -> None:
    """Remove temp logs left by a killed run (one run per output directory)."""
    tmp_dir = Path(out_dir) / TMP_DIR
    if tmp_dir.is_dir():
        for p in tmp_dir.iterdir():
            if p.is_file() and p.name.endswith(LOG_SUFFIX):
                p.unlink()


def _init_worker() -> None:
    # Several workers on few cores: keep each one single-threaded.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def run_pool(func: Callable[[Any], Any], tasks: Sequence[Any], workers: int | None,
             desc: str, total: int | None = None, initial: int = 0, *,
             backend: str = "local", ray_address: str | None = None, unit: str = "game") -> Iterator[Any]:
    """Return an iterator of ``func(task)`` for every task, in the order they finish, with a
    tqdm progress bar that counts ``initial`` ``unit``s already done out of ``total``.

    The one place where games are scheduled. ``backend="local"``: a process pool of
    ``workers`` (default: every CPU); ``workers <= 1`` runs in this process, single-threaded
    like a worker (torch would otherwise take every core). ``backend="ray"``: Ray tasks
    (:mod:`player.ray_backend`, which connects at once, so a bad ``ray_address`` is an error
    before the caller writes anything), at most ``workers`` at a time (default: every CPU of
    the cluster). ``func`` must be a module-level function whose result depends on its task
    alone, so that both backends give the same results.
    """
    if backend == "ray":
        from player import ray_backend

        results = ray_backend.imap(func, tasks, workers, ray_address)
    else:
        results = _local_imap(func, tasks, workers or os.cpu_count() or 1)
    return _progress(results, desc, len(tasks) + initial if total is None else total, initial, unit)


def first_game_played(results: Iterator[Any]) -> Iterator[Any]:
    """``results`` (of :func:`run_pool`) once the first has come: the first game builds the
    agents, so an unknown agent option or an unreadable model file raises here, before the
    caller writes its run directory."""
    first = next(results, None)
    return results if first is None else itertools.chain([first], results)


def _local_imap(func: Callable[[Any], Any], tasks: Sequence[Any], workers: int) -> Iterator[Any]:
    if workers <= 1 or len(tasks) <= 1:
        _init_worker()
        yield from map(func, tasks)
        return
    # concurrent.futures, not multiprocessing.Pool: Pool.terminate() after a worker's error can
    # hang for good (CPython gh-96995; seen here in CI), and a worker that dies hangs a Pool.
    # One task a worker at a time: after an error, Ctrl-C or an early close, the pool waits
    # only for the tasks already running, and no queued one starts.
    todo = iter(tasks)
    with ProcessPoolExecutor(min(workers, len(tasks)), mp_context=mp.get_context(),
                             initializer=_init_worker) as pool:
        pending = {pool.submit(func, task) for task in itertools.islice(todo, workers)}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            failed = [f for f in done if f.exception() is not None]
            for future in done:
                if future.exception() is None:
                    yield future.result()
            if failed:  # a task's own error before the broken pool it may have caused
                min(failed, key=lambda f: isinstance(f.exception(), BrokenProcessPool)).result()
            pending |= {pool.submit(func, task) for task in itertools.islice(todo, len(done))}


def _progress(results: Iterator[Any], desc: str, total: int, initial: int, unit: str) -> Iterator[Any]:
    """A tqdm bar on a terminal; in a log file, where a bar is noise, :func:`_log_lines`."""
    if not sys.stderr.isatty():
        yield from _log_lines(results, desc, total, initial, unit, LOG_EVERY_S)
        return
    from tqdm import tqdm

    with tqdm(total=total, initial=initial, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True) as bar:
        for out in results:
            bar.update(1)
            yield out


def _log_lines(results: Iterator[Any], desc: str, total: int, done: int, unit: str,
               every_s: float) -> Iterator[Any]:
    """``results``, with a line on stderr at most every ``every_s`` seconds: the count done,
    the minutes so far and those left at this run's pace (a run shorter than ``every_s``
    prints nothing)."""
    start = last = time.monotonic()
    first = done
    for out in results:
        done += 1
        now = time.monotonic()
        if now - last >= every_s:
            left = (total - done) * (now - start) / (done - first)
            print(f"{desc}: {done}/{total} {unit}s, {(now - start) / 60:.1f} min, about {left / 60:.0f} min left",
                  file=sys.stderr, flush=True)
            last = now
        yield out


# Agents built in this process, by (name, seat): building one can cost far more than a
# game (cnn-bot loads its nets: about 0.6 s; efficiency about 0.15 s), so each worker builds
# its agents once and reuses them.
_AGENTS: dict[tuple[str, int], Any] = {}


def get_agent(name: str, seat: int, seed: int) -> Any:
    """This process's agent ``name`` for ``seat``, built once, reseeded for every game."""
    from player.registry import make_agent

    agent = _AGENTS.get((name, seat))
    if agent is None:
        agent = _AGENTS[(name, seat)] = make_agent(name, seed=seed)
    else:
        agent.reseed(seed)
    return agent


def decision_counts(names: Sequence[str]) -> list[Counter | None]:
    """A copy of each seat's agent's ``stats`` (how its decisions were made) in this process;
    None for agents that keep none, empty for one not built yet."""
    out: list[Counter | None] = []
    for seat, name in enumerate(names):
        agent = _AGENTS.get((name, seat))
        stats = getattr(agent, "stats", None) if agent is not None else {}
        out.append(None if stats is None else Counter({k: int(v) for k, v in stats.items()}))
    return out


def play(names: Sequence[str], seed: int, agent_seeds: Sequence[int], hanchan: bool):
    """One game of the named agents (by seat) on the walls of ``seed``.

    A game's outcome is a function of its seeds alone, whichever worker plays it and whatever
    it played before (needed for ``--resume``): ``start_game`` makes an agent forget the last
    game and ``reseed`` resets its randomness (the Agent contract).
    """
    from game.match import play_game

    agents = [get_agent(n, s, a) for s, (n, a) in enumerate(zip(names, agent_seeds))]
    return play_game(agents, seed, hanchan=hanchan, names=names)


# ----------------------------------------------------------------------------- self-play


def log_name(index: int, seed: int) -> str:
    return f"{index:06d}-{seed}{LOG_SUFFIX}"


def _selfplay_task(task: tuple) -> tuple[str, list[dict]]:
    """Play one game; return its log path and events. The log is written by the caller: on
    a Ray cluster this runs on a machine without the output directory."""
    index, seed, agent, hanchan, path = task
    result = play([agent] * 4, seed, [derive_seed(seed, 1000 + s) for s in range(4)], hanchan)
    return path, result.events


def selfplay(agent: str, games: int, out_dir: Path, *, seed: int = 0, workers: int | None = None,
             hanchan: bool = False, allow_model_change: bool = False, backend: str = "local",
             ray_address: str | None = None) -> list[Path]:
    """Play ``games`` self-play games into ``out_dir``; return every log path (old and new).

    ``out_dir/run.json`` records the agent, seed, rule and the agent's model versions; a
    directory that already holds logs of this command is continued only by the same run
    (``allow_model_change``: after the agent's models changed). ``backend``, ``ray_address``:
    where the games are played (:func:`run_pool`); the logs are the same either way.
    """
    check_agent_name(agent)
    check_seed(seed)
    if games < 1:
        raise MahjongError(f"--games must be positive, got {games}")
    check_run_options(workers, out_dir, backend)
    out_dir = Path(out_dir)
    started = out_dir.is_dir() and any(out_dir.glob(f"*{LOG_SUFFIX}"))
    if started and not (out_dir / RUN).exists():
        # Logs of a self-play older than run.json: their names carry their wall seeds, so
        # only logs of this seed are kept; what they were played with is not known.
        print(f"selfplay: warning: {out_dir} holds logs but no {RUN} (an older self-play); "
              f"logs named for this run's walls are kept as they are", file=sys.stderr)
        started = False
    run = {"command": "selfplay", "agent": agent, "seed": seed, "hanchan": hanchan,
           "walls": "selfplay", "models": model_versions([agent])}
    run = check_run(out_dir, run, ("agent", "seed", "hanchan"), started=started,
                    allow_model_change=allow_model_change)
    paths = [out_dir / log_name(i, derive_seed(seed, i)) for i in range(games)]
    tasks = [(i, derive_seed(seed, i), agent, hanchan, str(p))
             for i, p in enumerate(paths) if not p.exists()]
    done = games - len(tasks)
    logs = first_game_played(run_pool(_selfplay_task, tasks, workers, desc=f"selfplay {agent}", total=games,
                                      initial=done, backend=backend, ray_address=ray_address))
    # Every check passed (a Ray cluster too): from here on the directory is written.
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(out_dir / RUN, run)
    clear_stale_temps(out_dir)
    if done:
        print(f"selfplay: {done} of {games} logs already in {out_dir}; playing the other "
              f"{len(tasks)}", file=sys.stderr)
    for path, events in logs:
        write_log(events, Path(path))
    return paths


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m player.selfplay",
        description="Play games of four copies of one agent and write one gzip mjai log per "
                    "game (DIR/<index>-<wall seed>.mjson.gz). Re-running skips existing logs.")
    ap.add_argument("--agent", required=True, help="registered agent name (player/registry.py)")
    ap.add_argument("--games", type=int, required=True, help="number of games")
    ap.add_argument("--out", type=Path, required=True, help="output directory")
    ap.add_argument("--seed", type=int, default=0,
                    help="base seed of walls and agents, 0..2^32-1 (default 0; the walls differ "
                         "from those of evaluate --seed with the same number)")
    ap.add_argument("--workers", type=int, default=None,
                    help="worker processes (default: number of CPUs; 1 = no pool); with "
                         "--backend ray, games at a time (default: the cluster's CPUs)")
    ap.add_argument("--hanchan", action="store_true", help="south games instead of east-only")
    ap.add_argument("--allow-model-change", action="store_true",
                    help="continue a run in --out although the agent's model files changed")
    add_backend_options(ap)
    return ap


def add_backend_options(ap: argparse.ArgumentParser) -> None:
    """``--backend`` and ``--ray-address``, the same for evaluate and selfplay."""
    ap.add_argument("--backend", choices=BACKENDS, default="local",
                    help="where games are played: local worker processes (default) or Ray "
                         "tasks (the ray extra: pip install -e '.[ray]'); the same games "
                         "either way")
    ap.add_argument("--ray-address", default=None,
                    help="with --backend ray: the cluster to join ('auto': the one started by "
                         "`ray start` on this machine, or host:port); default: start a Ray of "
                         "--workers CPUs on this machine")


def main(argv: Iterable[str] | None = None) -> int:
    args = build_parser().parse_args(None if argv is None else list(argv))
    try:
        paths = selfplay(args.agent, args.games, args.out, seed=args.seed, workers=args.workers,
                         hanchan=args.hanchan, allow_model_change=args.allow_model_change,
                         backend=args.backend, ray_address=args.ray_address)
    except MahjongError as e:
        print(f"selfplay: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("selfplay: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    print(f"selfplay: {len(paths)} logs in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
