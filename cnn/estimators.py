"""CNN estimators: each opponent's tenpai and each tile's deal-in from the table planes.

A small 1-D convolutional net over the 34 kinds (:mod:`cnn.estimator_planes`), two heads:

* ``tenpai``: 3 logits, P(opponent at relative seat 1, 2, 3 is tenpai);
* ``ron``: 3 x 34 logits, P(that opponent can ron kind t now) = tenpai and t among its waits
  and not furiten -- the product of Eq. 20 learned in one piece; P_L(t) = 1 - prod (1 - p).

CUDA when present, CPU otherwise; ``predict`` takes a batch of views. Weights are a plain
``.pt`` state dict (tensors only, loaded with ``weights_only=True``) plus a JSON header.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from torch import nn

from cnn.estimator_planes import N_PLANES, SCALE, encode
from game.errors import ModelFileError

DEFAULT_PATH = Path(__file__).resolve().parent / "models" / "estimators.pt"
FORMAT = "cnn-estimators-1"


class _Block(nn.Module):
    def __init__(self, ch: int):
        super().__init__()
        self.c1 = nn.Conv1d(ch, ch, 3, padding=1)
        self.c2 = nn.Conv1d(ch, ch, 3, padding=1)

    def forward(self, x):
        return torch.relu(x + self.c2(torch.relu(self.c1(x))))


class EstimatorNet(nn.Module):
    def __init__(self, channels: int = 64, blocks: int = 3):
        super().__init__()
        self.register_buffer("scale", torch.tensor(SCALE).view(1, N_PLANES, 1))
        self.stem = nn.Conv1d(N_PLANES, channels, 3, padding=1)
        self.body = nn.Sequential(*[_Block(channels) for _ in range(blocks)])
        self.ron = nn.Conv1d(channels, 3, 1)
        self.tenpai = nn.Sequential(nn.Linear(2 * channels, 64), nn.ReLU(), nn.Linear(64, 3))
        self.channels, self.blocks = channels, blocks

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """uint8/float planes [B, 45, 34] -> (tenpai logits [B, 3], ron logits [B, 3, 34])."""
        h = torch.relu(self.stem(planes.float() * self.scale))
        h = self.body(h)
        pooled = torch.cat([h.mean(dim=2), h.amax(dim=2)], dim=1)
        return self.tenpai(pooled), self.ron(h)


def device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


class CnnEstimators:
    def __init__(self, net: EstimatorNet):
        self.device = device()
        self.net = net.to(self.device).eval()

    @classmethod
    def load(cls, path: str | Path) -> "CnnEstimators":
        path = Path(path)
        try:
            head = json.loads(path.with_suffix(".json").read_text())
            state = torch.load(path, map_location="cpu", weights_only=True)
        except FileNotFoundError as exc:
            raise ModelFileError(f"{exc.filename}: CNN estimator file is missing") from None
        except (OSError, ValueError, RuntimeError) as exc:
            raise ModelFileError(f"{path}: cannot read the CNN estimator weights ({exc})") from None
        if head.get("format") != FORMAT:
            raise ModelFileError(f"{path}: format {head.get('format')!r} != {FORMAT!r}")
        net = EstimatorNet(head["channels"], head["blocks"])
        try:
            net.load_state_dict(state)
        except RuntimeError as exc:
            raise ModelFileError(f"{path}: weights do not match the network ({exc})") from None
        return cls(net)

    @classmethod
    def default(cls) -> "CnnEstimators":
        return cls.load(DEFAULT_PATH)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save(self.net.state_dict(), path)
        path.with_suffix(".json").write_text(json.dumps(
            {"format": FORMAT, "channels": self.net.channels, "blocks": self.net.blocks}))
        return path

    @torch.no_grad()
    def predict_planes(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(P tenpai [B, 3], P ron [B, 3, 34]) for planes [B, 45, 34], opponents at relative
        seats 1, 2, 3."""
        x = torch.from_numpy(np.ascontiguousarray(planes)).to(self.device)
        t, r = self.net(x)
        return torch.sigmoid(t).cpu().numpy(), torch.sigmoid(r).cpu().numpy()

    def predict(self, views) -> dict[str, np.ndarray]:
        """Batched estimates for views: p_tenpai [B, 4], p_ron [B, 4, 34], p_lose [B, 34]
        by absolute seat (each viewer's own row zero)."""
        planes = np.stack([encode(v) for v in views])
        pt, pr = self.predict_planes(planes)
        B = len(views)
        p_tenpai = np.zeros((B, 4))
        p_ron = np.zeros((B, 4, 34))
        for b, v in enumerate(views):
            for k in (1, 2, 3):
                j = (v.seat + k) % 4
                p_tenpai[b, j] = 1.0 if v.riichi[j] else pt[b, k - 1]
                p_ron[b, j] = pr[b, k - 1]
        return {"p_tenpai": p_tenpai, "p_ron": p_ron, "p_lose": 1 - np.prod(1 - p_ron, axis=1)}
