"""Train cnn-bot's nets from game records (T§4.2-4.4, §7.6; P§V-VI; spec §3.6, §4).

    python -m cnn.train_bot --records 'runs/selfplay/*.mjson' --model m86 --out runs/cnnbot

Adam (lr 1e-3), batch 256, dropout 0.5, categorical cross-entropy, as the paper. The dataset
is built once into ``OUT/dataset.npz`` (bit-packed planes) and reused while the record files
stay the same. A held-out share of the *games* measures accuracy after every epoch; the
epoch with the best held-out accuracy is kept as ``OUT/<task>.pt`` (a self-describing
checkpoint: config + state dict; ``--half`` stores float16 as the shipped weights).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from cnn.bot_data import TASKS, load_or_build, unpack
from cnn.encoders import MODEL_PLANES, channels
from cnn.nets import GaoNet, NetConfig, load_checkpoint, save_checkpoint
from game.errors import MahjongError

OFFER_TASKS = ("pon", "chi")  # nets that read the offered-tile plane [PROPOSAL]


def split_games(games: np.ndarray, holdout: float, seed: int) -> np.ndarray:
    """Boolean mask of held-out samples: whole games, at least one game when there are two."""
    ids = np.unique(games)
    rng = np.random.default_rng(seed)
    n_out = int(round(len(ids) * holdout))
    if holdout > 0 and len(ids) >= 2:
        n_out = max(1, min(n_out, len(ids) - 1))
    else:
        n_out = 0
    held = rng.permutation(ids)[:n_out]
    return np.isin(games, held)


def net_config(task: str, model: str, *, fc300: bool, bn_axis: str) -> NetConfig:
    offer = task in OFFER_TASKS
    return NetConfig(task=task, model=model, in_planes=MODEL_PLANES[model] + int(offer),
                     fc300=fc300, bn_axis=bn_axis)


def _batches(n: int, size: int, rng: np.random.Generator | None):
    order = rng.permutation(n) if rng is not None else np.arange(n)
    for i in range(0, n, size):
        yield order[i : i + size]


def evaluate(net: GaoNet, x: np.ndarray, y: np.ndarray, chans: list[int], device: str,
             mask: np.ndarray | None = None, batch: int = 1024) -> float:
    """Top-1 accuracy (masked to ``mask`` when given)."""
    if len(y) == 0:
        return float("nan")
    net.eval()
    hits = 0
    with torch.no_grad():
        for idx in _batches(len(y), batch, None):
            logits = net(torch.from_numpy(unpack(x[idx], chans)).to(device)).cpu().numpy()
            if mask is not None:
                logits = np.where(mask[idx], logits, -np.inf)
            hits += int((logits.argmax(1) == y[idx]).sum())
    return hits / len(y)


def train_task(task: str, data: dict[str, np.ndarray], args, device: str, log) -> dict:
    x, y, games = data[f"{task}_x"], data[f"{task}_y"].astype(np.int64), data[f"{task}_game"]
    mask = data["discard_mask"] if task == "discard" else None
    config = net_config(task, args.model, fc300=not args.no_fc300, bn_axis=args.bn_axis)
    if len(y) < 2:
        log(f"{task}: {len(y)} samples, nothing to train")
        return {"task": task, "samples": int(len(y)), "trained": False}
    held = split_games(games, args.holdout, args.split_seed)
    tr, va = np.flatnonzero(~held), np.flatnonzero(held)
    chans = channels(args.model, offer=task in OFFER_TASKS)
    torch.manual_seed(args.seed)
    net = GaoNet(config).to(device)
    init = Path(args.init) / f"{task}.pt" if args.init else None
    if init is not None and init.exists():
        start = load_checkpoint(init, task=task, device=device)
        if start.config != config:
            raise MahjongError(f"{init}: its net config {start.config} differs from {config}")
        net = start
        log(f"{task}: starting from {init}")
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    rng = np.random.default_rng(args.seed)
    best = {"epoch": 0, "val_acc": -1.0}
    out = Path(args.out) / f"{task}.pt"
    for epoch in range(1, args.epochs + 1):
        net.train()
        seen = hits = 0
        total_loss = 0.0
        steps = 0
        bar = tqdm(list(_batches(len(tr), args.batch, rng)), desc=f"{task} epoch {epoch}",
                   unit="batch", disable=args.quiet)
        for idx in bar:
            rows = tr[idx]
            if len(rows) < 2:  # batch norm needs two samples in training mode
                continue
            xb = torch.from_numpy(unpack(x[rows], chans)).to(device)
            yb = torch.from_numpy(y[rows]).to(device)
            logits = net(xb)
            loss = loss_fn(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total_loss += loss.item() * len(rows)
            hits += int((logits.argmax(1) == yb).sum())
            seen += len(rows)
            steps += 1
            if args.max_steps and steps >= args.max_steps:
                break
        train_acc = hits / max(seen, 1)
        val_acc = evaluate(net, x[va], y[va], chans, device, None if mask is None else mask[va])
        log(f"{task} epoch {epoch}: loss {total_loss / max(seen, 1):.4f} train_acc {train_acc:.4f} "
            f"val_acc {val_acc:.4f} (train {len(tr)}, held-out {len(va)})")
        score = val_acc if not np.isnan(val_acc) else train_acc
        if score > best["val_acc"]:
            best = {"epoch": epoch, "val_acc": score, "train_acc": train_acc}
            meta = {"task": task, "epoch": epoch, "train_samples": int(len(tr)),
                    "heldout_samples": int(len(va)), "val_acc": val_acc, "train_acc": train_acc,
                    "records": args.records, "thesis_sampling": args.thesis_sampling}
            save_checkpoint(net, out, meta=meta, half=args.half)
    return {"task": task, "samples": int(len(y)), "trained": True, "best": best, "path": str(out)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cnn.train_bot", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", required=True, help="glob (or comma-separated globs) of record files, any format")
    ap.add_argument("--model", default="m86", choices=sorted(MODEL_PLANES), help="plane variant (default m86)")
    ap.add_argument("--out", required=True, help="output folder: checkpoints, dataset.npz, train_log.txt")
    ap.add_argument("--tasks", default=",".join(TASKS), help="comma-separated subset of " + ",".join(TASKS))
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=256, help="batch size (paper: 256)")
    ap.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (paper: 0.001)")
    ap.add_argument("--holdout", type=float, default=0.1, help="share of games held out (paper: 10%%)")
    ap.add_argument("--thesis-sampling", action="store_true",
                    help="one followed seat per hand, stop at its riichi, drop hands it lost >1500 in")
    ap.add_argument("--no-fc300", action="store_true", help="drop the FC-300 layer (T§6.2 reading)")
    ap.add_argument("--bn-axis", default="width", choices=("width", "channel"),
                    help="'width' = the paper's Keras batch norm over copies (default)")
    ap.add_argument("--half", action="store_true", help="store float16 weights (shipped models)")
    ap.add_argument("--max-steps", type=int, default=0, help="stop each epoch after this many batches (0 = all)")
    ap.add_argument("--split-seed", type=int, default=0, help="seed of the held-out game choice")
    ap.add_argument("--init", default=None, help="folder of checkpoints to continue training from")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default=None, help="cuda / cpu (default: cuda when present)")
    ap.add_argument("--dataset", default=None, help="dataset cache (default OUT/dataset.npz)")
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    try:
        return _run(args)
    except MahjongError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _run(args) -> int:
    from game.records import iter_record_files

    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    bad = [t for t in tasks if t not in TASKS]
    if bad:
        raise MahjongError(f"unknown task(s) {bad}; known: {', '.join(TASKS)}")
    paths = iter_record_files(args.records if "," not in args.records else args.records.split(","))
    if not paths:
        raise MahjongError(f"no record files match {args.records!r}")
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log_file = (out / "train_log.txt").open("a")

    def log(line: str) -> None:
        print(line, flush=True)
        log_file.write(line + "\n")
        log_file.flush()

    t0 = time.time()
    cache = Path(args.dataset) if args.dataset else out / "dataset.npz"
    data = load_or_build(paths, cache, thesis=args.thesis_sampling, seed=args.seed, progress=not args.quiet)
    counts = {t: int(len(data[f"{t}_y"])) for t in TASKS}
    log(f"dataset {cache}: {len(paths)} files, samples {counts} ({time.time() - t0:.1f}s), device {device}")
    summary = [train_task(t, data, args, device, log) for t in tasks]
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    log_file.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
