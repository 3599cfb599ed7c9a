"""The act thresholds of cnn-bot's pon, chi and riichi nets: read them, or set them.

    python -m cnn.thresholds                                   # each net's threshold and its origin
    python -m cnn.thresholds --set pon=0.6 riichi=0.35 --why "games: cnn/README.md, seeds 30007-30008"

``cnn.train_bot`` chooses a net's threshold on held-out games (``--threshold-rule``: the
teacher's act rate by default). A threshold chosen instead by strength in games is written
here into the checkpoint's config, its weights untouched, with ``--why`` kept in its meta;
``cnn-bot:riichi=X`` (``player.agents.cnn_bot``) tries a value without writing it.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from cnn.nets import load_checkpoint
from cnn.policy import DEFAULT_MODELS, THRESHOLD_TASKS, check_threshold
from game.errors import MahjongError


def parse_assignments(items: list[str]) -> dict[str, float]:
    """``["pon=0.6", "riichi=0.35"]`` -> ``{"pon": 0.6, "riichi": 0.35}``; each task once,
    each value in (0, 1)."""
    out: dict[str, float] = {}
    for item in items:
        task, eq, raw = item.partition("=")
        if not eq or task in out:
            raise MahjongError(f"{item!r}: expected TASK=VALUE once per task, TASK one of {THRESHOLD_TASKS}")
        try:
            value = float(raw)
        except ValueError:
            raise MahjongError(f"{item!r}: {raw!r} is not a number") from None
        out[task] = check_threshold(task, value)
    return out


def set_threshold(path: Path, task: str, value: float, why: str) -> float:
    """Write ``value`` as the act threshold of the ``task`` net at ``path`` (its tensors kept
    bit for bit); returns the threshold it had."""
    load_checkpoint(path, task=task)  # a missing or foreign file: ModelFileError naming it
    blob = torch.load(path, map_location="cpu", weights_only=True)
    old = float(blob["config"].get("threshold", 0.5))
    blob["config"]["threshold"] = float(value)
    blob["meta"] = {**blob.get("meta", {}), "threshold_rule": "games", "threshold_why": why,
                    "threshold_before": old}
    tmp = path.with_name(path.name + ".tmp")
    torch.save(blob, tmp)
    tmp.replace(path)  # a kill leaves the old file or the new
    return old


def describe(folder: Path) -> list[str]:
    lines = []
    for task in THRESHOLD_TASKS:
        path = folder / f"{task}.pt"
        net = load_checkpoint(path, task=task)
        meta = torch.load(path, map_location="cpu", weights_only=True).get("meta", {})
        rule = meta.get("threshold_rule", "-")
        why = f" ({meta['threshold_why']})" if meta.get("threshold_why") else ""
        lines.append(f"{task:7s} {net.config.threshold:.4f}  chosen by {rule}{why}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cnn.thresholds", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=Path, default=DEFAULT_MODELS,
                    help="folder with pon/chi/riichi.pt (default: the shipped nets)")
    ap.add_argument("--set", nargs="+", default=[], metavar="TASK=VALUE",
                    help="write these thresholds (TASK one of pon, chi, riichi)")
    ap.add_argument("--why", default="",
                    help="how the values were chosen, kept in the checkpoints' meta (required with --set)")
    args = ap.parse_args(argv)
    try:
        values = parse_assignments(args.set)
        if values and not args.why.strip():
            raise MahjongError("--set needs --why: say how the thresholds were chosen")
        describe(args.models)  # every net readable before any is written
        for task, value in values.items():
            old = set_threshold(args.models / f"{task}.pt", task, value, args.why)
            print(f"{task}: {old:.4f} -> {value:.4f}")
        print("\n".join(describe(args.models)))
    except MahjongError as exc:
        print(f"python -m cnn.thresholds: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
