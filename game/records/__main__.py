"""``python -m game.records``: convert records to mjai, or check them against the engine.

    python -m game.records convert IN -o OUT          # any format in, mjai JSONL out (.gz ok)
    python -m game.records check FILE [FILE ...]      # replay through riichienv, compare scores

``check`` prints one line per file: ``OK``, ``MISMATCH`` (the engine disagrees with the
record; where), ``UNVERIFIABLE`` (the record does not state what would be compared) or
``ERROR`` (a malformed file: file and position), and goes on with the next file. Exit
status: 0 if every file is OK, 1 if some are MISMATCH or UNVERIFIABLE, 2 if some are
malformed (or no file matches). ``convert`` writes its output whole or not at all.
"""
from __future__ import annotations

import argparse
import sys

from game.cli import reports_errors
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
    check.add_argument("-q", "--quiet", action="store_true",
                       help="print only the files that are not OK")
    return parser


@reports_errors
def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from game import records
    from game.records import check as checker

    if args.command == "convert":
        records.write_mjai(records.read_events(args.input), args.output)
        return 0
    files = records.iter_record_files(args.files)
    status = 0
    for path in _progress(files):
        try:
            line, result = checker.check_file(path)
        except MahjongError as exc:  # one bad file is reported; the batch goes on
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
