"""Train the CNN estimators (per-opponent tenpai, per-tile deal-in) from a glob of records.

    python -m cnn.train_estimators --records 'runs/selfplay/*.mjson.gz' --out cnn/models

One row per discard of a record (the same decision points as the LR datasets), labelled
with every opponent's true tenpai and the kinds it could ron. Planes are built once and
cached (``OUT/planes-<key>.npz``). Training is short on CPU (``--epochs``, ``--max-rows``);
CUDA is used when present. Exit status 2 with a one-line error on a bad record set.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from cnn.estimator_planes import load_or_build_planes
from game.cli import reports_errors


def train(data: dict[str, np.ndarray], *, epochs: int = 4, batch: int = 256, lr: float = 2e-3,
          channels: int = 64, blocks: int = 3, max_rows: int | None = None, seed: int = 0,
          max_steps: int | None = None, progress: bool = True):
    """Fit an :class:`EstimatorNet`; returns CnnEstimators. Loss: BCE on tenpai (non-riichi
    opponents) plus BCE on the 3 x 34 ron labels."""
    import torch

    from cnn.estimators import CnnEstimators, EstimatorNet, device

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    n = len(data["tile"])
    idx = rng.permutation(n)[: max_rows or n]
    dev = device()
    net = EstimatorNet(channels, blocks).to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    bce = torch.nn.BCEWithLogitsLoss(reduction="none")
    X = torch.from_numpy(data["planes"])
    T = torch.from_numpy(data["tenpai"]).float()
    R = torch.from_numpy(data["ron"]).float()
    M = torch.from_numpy(~data["riichi"]).float()
    steps = 0
    for ep in range(epochs):
        order = rng.permutation(idx)
        total = 0.0
        for s in range(0, len(order), batch):
            b = torch.from_numpy(order[s:s + batch])
            t, r = net(X[b].to(dev))
            lt = (bce(t, T[b].to(dev)) * M[b].to(dev)).sum() / M[b].sum().clamp(min=1).to(dev)
            lr_ = bce(r, R[b].to(dev)).mean() * 34
            loss = lt + lr_
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(b)
            steps += 1
            if max_steps is not None and steps >= max_steps:
                break
        if progress:
            print(f"epoch {ep + 1}: loss {total / max(len(order), 1):.4f}", file=sys.stderr)
        if max_steps is not None and steps >= max_steps:
            break
    return CnnEstimators(net.cpu())


@reports_errors
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cnn.train_estimators", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", required=True, nargs="+", help="record glob(s) or paths")
    ap.add_argument("--out", required=True, help="output directory (estimators.pt + .json)")
    ap.add_argument("--cache", default=None, help="planes cache directory (default: OUT)")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--max-rows", type=int, default=None, help="train on at most this many rows")
    ap.add_argument("--channels", type=int, default=64)
    ap.add_argument("--blocks", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    spec = args.records if len(args.records) > 1 else args.records[0]
    data = load_or_build_planes(spec, args.cache or args.out)
    est = train(data, epochs=args.epochs, channels=args.channels, blocks=args.blocks,
                max_rows=args.max_rows, seed=args.seed)
    path = est.save(Path(args.out) / "estimators.pt")
    print(f"trained on {len(data['tile'])} decisions -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
