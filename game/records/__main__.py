"""``python -m game.records``: convert records to mjai, or check them against the engine.

    python -m game.records convert IN -o OUT          # any format in, mjai JSONL out (.gz ok)
    python -m game.records check FILE [FILE ...]      # replay through riichienv, compare scores

``check`` prints one line per file (``OK`` or ``MISMATCH`` with where) and exits 0 only if
every file agrees, 1 if some disagree, 2 (one line naming file and position) if a file is
malformed.
"""
from __future__ import annotations

import argparse
import sys

from game.errors import MahjongError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m game.records",
        description="Game records (Tenhou mjlog XML, tenhou.net/6 JSON, mjai JSONL; plain or "
                    "gzip; format detected from the content).")
    sub = parser.add_subparsers(dest="command", required=True)
    conv = sub.add_parser("convert", help="convert one record to mjai JSONL")
    conv.add_argument("input", help="record file in any supported format")
    conv.add_argument("-o", "--output", required=True, help="mjai output (.gz = gzip)")
    check = sub.add_parser(
        "check", help="replay records through riichienv and compare every hand's score "
                      "changes and the final scores with the record's own")
    check.add_argument("files", nargs="+", help="record files, directories or glob patterns")
    check.add_argument("-q", "--quiet", action="store_true", help="print only mismatches/errors")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from game import records
    from game.records import check as checker

    if args.command == "convert":
        try:
            records.write_mjai(records.read_events(args.input), args.output)
        except MahjongError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    try:
        files = records.iter_record_files(args.files)
    except MahjongError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    status = 0
    progress = _progress(files)
    for path in progress:
        try:
            line, result = checker.check_file(path)
        except MahjongError as exc:
            print(f"ERROR {exc}", flush=True)
            status = 2
            continue
        if not result.ok:
            status = max(status, 1)
        if not (args.quiet and result.ok):
            print(line, flush=True)
    return status


def _progress(files):
    if len(files) < 5 or not sys.stderr.isatty():
        return files
    from tqdm import tqdm
    return tqdm(files, desc="checking", unit="file", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
