"""The options of the commands that replay records with an agent (``player.calibration``,
``player.agreement``, ``player.scenario_data``): which records, which agent, how many of its
decisions, how many workers, whose seats."""
from __future__ import annotations

import argparse

from game.errors import MahjongError


def add_record_options(ap: argparse.ArgumentParser, *, agent_help: str, every_help: str,
                       records_required: bool = True, seat_name: bool = False) -> None:
    """``seat_name``: a ``--name`` option too, the seats of one player name (checked by
    :func:`record_paths`)."""
    ap.add_argument("--records", required=records_required, nargs="+",
                    help="glob(s) or paths of records (any format)")
    if seat_name:
        ap.add_argument("--name", default=None,
                        help="only the seats of this player name (evaluate's logs name a seat by its agent, e.g. mdp)")
    ap.add_argument("--agent", default="mdp", help=agent_help)
    ap.add_argument("--every", type=int, default=1, help=every_help)
    ap.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")


def record_paths(args: argparse.Namespace) -> list[str]:
    """The record files of ``--records``, after checking ``--every``, ``--workers`` and
    ``--agent`` (MahjongError, before any record is read) and, where the command has it,
    that ``--name`` is a player of the records (:func:`check_seat_name`)."""
    from game.records import iter_record_files
    from player.selfplay import check_agent_name

    if args.every < 1 or args.workers < 1:
        raise MahjongError(f"--every and --workers must be >= 1, got {args.every} and {args.workers}")
    check_agent_name(args.agent)
    paths = [str(p) for p in iter_record_files(args.records if len(args.records) > 1 else args.records[0])]
    check_seat_name(paths, getattr(args, "name", None))
    return paths


def check_seat_name(paths: list[str], name: str | None) -> None:
    """MahjongError, before the long run, when ``--name`` names no seat of any record: evaluate
    names a seat by its agent's spec (``mdp:projected_deal_in=1``), and a name that matches no
    seat would give an empty result rather than an error. Reads records until one has it."""
    if name is None:
        return
    from game.records import player_names, read_events

    seen: set[str] = set()
    for p in paths:
        names = player_names(read_events(p))
        if name in names:
            return
        seen.update(names)
    raise MahjongError(f"--name {name!r} is no player of the {len(paths)} records "
                       f"(their players: {', '.join(sorted(seen)) or 'unnamed'})")
