"""``--backend ray``: the games of ``evaluate`` and ``selfplay`` as Ray tasks, on this machine
or on a cluster (README, "Running on a cluster"). Ray is an optional extra:
``pip install -e '.[ray]'``.

A task is one game, a pure function of its seeds (``player.selfplay.play``), so a game
played on any machine is the game the local backend plays. Tasks return their results to
this process, which alone writes the run directory: the other machines need the project and
its model files, not the output folder.
"""
from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any

from game.errors import MahjongError

EXTRA = "install the ray extra: pip install -e '.[ray]'"


def require() -> ModuleType:
    """The ``ray`` module; MahjongError (one line saying how to install it) without it."""
    try:
        import ray
    except ImportError:
        raise MahjongError(f"--backend ray: {EXTRA}") from None
    return ray


def imap(func: Callable[[Any], Any], tasks: Sequence[Any], workers: int | None,
         address: str | None) -> Iterator[Any]:
    """Connect to Ray now and return an iterator of ``func(task)`` in the order they finish.

    ``address`` None starts a Ray of ``workers`` CPUs (default: all) on this machine, shut
    down when the iterator ends; otherwise joins that cluster (``"auto"``: the one of
    ``ray start`` here). At most ``workers`` tasks are in flight (default: the cluster's
    CPUs), so a kill loses no more games than the local pool would.
    """
    if not tasks:
        return iter(())
    ray = require()
    started = _connect(address, workers)
    slots = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    return _results(ray.remote(num_cpus=1)(func), tasks, slots, started)


def _connect(address: str | None, workers: int | None) -> bool:
    """``ray.init``; True when this call started Ray (and must shut it down)."""
    import ray

    if ray.is_initialized():
        return False
    try:
        if address is None:
            ray.init(num_cpus=workers or os.cpu_count() or 1, include_dashboard=False,
                     logging_level=logging.WARNING)
        else:
            ray.init(address=address, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as e:
        why = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise MahjongError(f"--ray-address {address or '(local)'}: cannot start or join "
                           f"Ray ({why})") from None
    return True


def _results(remote: Any, tasks: Sequence[Any], slots: int, started: bool) -> Iterator[Any]:
    import ray
    from ray.exceptions import RayTaskError

    todo = iter(tasks)
    pending = [remote.remote(t) for t in itertools.islice(todo, slots)]
    try:
        while pending:
            (ready,), pending = ray.wait(pending, num_returns=1)
            pending += [remote.remote(t) for t in itertools.islice(todo, 1)]
            try:
                yield ray.get(ready)
            except RayTaskError as e:
                if isinstance(e.cause, MahjongError):
                    raise e.cause from None  # bad input seen on a worker: its one line
                raise  # our own bug: Ray's traceback from the worker
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
