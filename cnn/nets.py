"""cnn-bot's networks (Gao et al.; thesis T§4.2, §6.2, §7.3, paper P§V; specs/cnn_bot.md §3).

Every net is the same trunk: three blocks ``Conv2D(100, 5x2, valid) -> ReLU -> BatchNorm ->
Dropout(0.5)`` over a ``(N, C, 34, 4)`` plane tensor, then ``Flatten`` (100 x 22 x 1 = 2200),
then optionally ``Dense(300) -> ReLU -> BatchNorm -> Dropout`` (the FC-300 head of T Fig 4.2
and P§V), then the output layer. Only the output width differs between the decisions
(T§7.3: "the only difference is the last layer"): 34 tile kinds for the discard net, 2 classes
for pon and riichi, 4 for chi (no call / called tile left, middle, right). Kan and winning have
no net (rules, see :mod:`cnn.kan_rule`).

Batch-norm axis. The thesis's Keras summary gives the three conv batch norms 12, 8 and 4
parameters: ``4 x width``. Keras' default ``axis=-1`` on a channels-first tensor normalised
over the *copy* (width) axis, not over the 100 filters. ``bn_axis="width"`` reproduces that
(and the parameter counts: 928,058 for the 56-plane net); ``bn_axis="channel"`` is ordinary
per-filter batch norm, a deviation from the paper.

Activation placement (ReLU inside the conv, before the batch norm) is the spec's reading of
a summary without Activation layers [AMBIG]; momentum and epsilon follow Keras' defaults.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

import numba
import numpy as np
import torch
from torch import nn

from game.errors import ModelFileError

N_ROWS = 34
N_COLS = 4
KERAS_BN_MOMENTUM = 0.01  # Keras momentum 0.99 is PyTorch 0.01
KERAS_BN_EPS = 1e-3

# Output width of each decision net (T§7.3, P§V.B-E).
HEAD_CLASSES = {"discard": 34, "pon": 2, "chi": 4, "riichi": 2}


@dataclass(frozen=True)
class NetConfig:
    """Everything needed to rebuild a net: it is stored inside every checkpoint."""

    task: str = "discard"  # discard | pon | chi | riichi
    model: str = "m86"  # encoder variant: m56 | m68 | m86 (see cnn.encoders)
    in_planes: int = 86
    filters: int = 100
    fc300: bool = True
    bn_axis: str = "width"  # "width" = the paper's Keras quirk, "channel" = per filter
    dropout: float = 0.5
    features: int = 0  # feature set of cnn.features it reads (0 none; True = 1) [PROPOSAL]
    threshold: float = 0.5  # pon / chi / riichi: act when P(act) exceeds it (held-out choice)
    extra: dict = field(default_factory=dict)  # free-form notes (encoder options)

    @property
    def n_classes(self) -> int:
        return HEAD_CLASSES[self.task]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "NetConfig":
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise ModelFileError(f"unknown net config keys {sorted(unknown)}")
        return cls(**data)


class WidthBatchNorm(nn.Module):
    """Batch norm over the last (copy) axis of ``(N, C, H, W)``: Keras ``axis=-1``."""

    def __init__(self, width: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(width, eps=KERAS_BN_EPS, momentum=KERAS_BN_MOMENTUM)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # (N, C, H, W) -> (N, W, C, H): BatchNorm2d normalises per index of dim 1.
        return self.bn(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)


def _batch_norm(axis: str, filters: int, width: int) -> nn.Module:
    if axis == "width":
        return WidthBatchNorm(width)
    if axis == "channel":
        return nn.BatchNorm2d(filters, eps=KERAS_BN_EPS, momentum=KERAS_BN_MOMENTUM)
    raise ValueError(f"bn_axis must be 'width' or 'channel', not {axis!r}")


class GaoNet(nn.Module):
    """The discard / pon / chi / riichi net of Gao et al.; returns logits ``(N, classes)``."""

    def __init__(self, config: NetConfig):
        super().__init__()
        self.config = config
        layers: list[nn.Module] = []
        channels, height, width = config.in_planes, N_ROWS, N_COLS
        for _ in range(3):
            height, width = height - 4, width - 1  # 5x2 kernel, 'valid' padding
            layers += [
                nn.Conv2d(channels, config.filters, kernel_size=(5, 2)),
                nn.ReLU(),
                _batch_norm(config.bn_axis, config.filters, width),
                nn.Dropout(config.dropout),
            ]
            channels = config.filters
        layers.append(nn.Flatten())
        flat = channels * height * width  # 100 * 22 * 1 = 2200
        if config.fc300:
            layers += [
                nn.Linear(flat, 300),
                nn.ReLU(),
                nn.BatchNorm1d(300, eps=KERAS_BN_EPS, momentum=KERAS_BN_MOMENTUM),
                nn.Dropout(config.dropout),
            ]
            flat = 300
        layers.append(nn.Linear(flat, config.n_classes))
        self.layers = nn.Sequential(*layers)

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        return self.layers(planes)


def _bn_affine(bn: nn.Module, shape: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor]:
    """(scale, shift) of an eval-mode batch norm, shaped to broadcast over its input."""
    bn = bn.bn if isinstance(bn, WidthBatchNorm) else bn
    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    return scale.reshape(shape), (bn.bias - bn.running_mean * scale).reshape(shape)


class FoldedNet:
    """A trained :class:`GaoNet`'s eval-mode function in fewer operations, for play: dropout
    gone, the batch norms of the first two blocks one multiply-add each, and those before a
    dense layer folded into its weights (an affine map followed by a linear one is linear).

    The same logits as ``net.eval()(x)`` up to float rounding. It copies the weights: a net
    changed afterwards needs a new ``FoldedNet``.

    One position at a time (a batch of one, as a player asks) takes a faster path with the
    same function, :meth:`_single`: the activations kept as (height, width, filters), the
    first convolution summed over the input's non-zero entries only (the planes are about 90 %
    zeros), the second and third as one matrix product each over their receptive fields.
    ``one_at_a_time = False`` turns that path off (``benchmarks/cnn_bot_speed.py --conv``).
    """

    one_at_a_time = True

    def __init__(self, net: GaoNet):
        self.config, self.source = net.config, net
        layers = list(net.layers)
        width = N_COLS
        norm = (lambda w: (1, 1, w)) if net.config.bn_axis == "width" else (lambda w: (-1, 1, 1))
        with torch.no_grad():
            self.convs, self.norms = [], []
            for b in range(3):
                conv, bn = layers[4 * b], layers[4 * b + 2]
                width -= 1
                self.convs.append((conv.weight.detach().clone(), conv.bias.detach().clone()))
                self.norms.append(_bn_affine(bn, norm(width)))
            # the third block's norm, per position of the flattened (C, H, W) activations
            flat_shape = (net.config.filters, N_ROWS - 12, width)
            scale, shift = (t.expand(flat_shape).reshape(-1) for t in self.norms.pop())
            dense = [m for m in layers[12:] if isinstance(m, nn.Linear)]
            self.dense = [_fold_into(dense[0], scale, shift)]
            if net.config.fc300:  # Linear, ReLU, BatchNorm1d, Dropout, Linear
                self.dense.append(_fold_into(dense[1], *_bn_affine(layers[15], (-1,))))
            self._prepare_single()

    def _prepare_single(self) -> None:
        """The weights of :meth:`_single` in its layouts: each convolution's rows in the order
        (input plane or kernel row, kernel row or column, filter) its receptive field is read
        in, each block's norm spread over (position, filter), and the first dense layer's
        columns in (height, width, filter) order."""
        (w1, b1), (w2, b2), (w3, b3) = self.convs
        filters = w1.shape[0]
        self._w1 = np.ascontiguousarray(w1.permute(1, 2, 3, 0).reshape(-1, filters).numpy())
        self._b1 = b1.numpy().copy()
        self._w2 = w2.permute(2, 3, 1, 0).reshape(-1, filters).contiguous()
        self._w3 = w3.permute(2, 3, 1, 0).reshape(-1, filters).contiguous()
        self._b2, self._b3 = b2, b3
        self._norm = []
        for i, (scale, shift) in enumerate(self.norms):
            width = N_COLS - 1 - i
            shape = (filters, N_ROWS - 4 * (i + 1), width)
            self._norm.append(tuple(t.expand(shape).permute(1, 2, 0).reshape(-1, filters).contiguous()
                                    for t in (scale, shift)))
        self._norm1 = tuple(t.numpy() for t in self._norm[0])
        w, b = self.dense[0]
        hwc = w.reshape(w.shape[0], filters, N_ROWS - 12, N_COLS - 3).permute(0, 2, 3, 1)
        self._dense0 = (hwc.reshape(w.shape[0], -1).contiguous(), b)

    def _single(self, x: torch.Tensor) -> torch.Tensor:
        """The logits of one position ``x`` (1, C, 34, 4), as :meth:`__call__` computes them."""
        filters = self._b1.shape[0]
        h1 = np.empty(((N_ROWS - 4) * (N_COLS - 1), filters), np.float32)
        cols = np.empty(((N_ROWS - 8) * (N_COLS - 2), 10 * filters), np.float32)
        _first_block(x[0].numpy().reshape(-1), self._w1, self._b1, *self._norm1, h1, cols)
        # second block: (26 x 2 positions) x (5 kernel rows x 2 columns x filters)
        h2 = torch.relu(torch.addmm(self._b2, torch.from_numpy(cols), self._w2))
        h2 = torch.addcmul(self._norm[1][1], h2, self._norm[1][0])
        # third block: a receptive field is a contiguous run of the (26, 2, F) activations
        flat = h2.reshape(-1)
        run = 5 * (N_COLS - 2) * filters
        h3 = torch.relu(torch.addmm(self._b3, flat.as_strided((N_ROWS - 12, run), ((N_COLS - 2) * filters, 1)), self._w3))
        h = torch.nn.functional.linear(h3.reshape(1, -1), *self._dense0)
        for w, b in self.dense[1:]:
            h = torch.nn.functional.linear(torch.relu(h), w, b)
        return h

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if self.one_at_a_time and x.shape[0] == 1 and x.device.type == "cpu" and not x.requires_grad:
            return self._single(x)
        h = x
        for i, (w, b) in enumerate(self.convs):
            h = torch.relu(torch.nn.functional.conv2d(h, w, b))
            if i < len(self.norms):  # the third block's norm is in the dense weights
                h = torch.addcmul(self.norms[i][1], h, self.norms[i][0])
        h = h.flatten(1)
        for i, (w, b) in enumerate(self.dense):
            h = torch.nn.functional.linear(h, w, b)
            if i < len(self.dense) - 1:
                h = torch.relu(h)
        return h


@numba.njit(cache=True, fastmath=True, boundscheck=False)
def _first_block(x, w, b, scale, shift, out, cols):
    """The first block of :class:`FoldedNet` on one position, over the non-zero entries of its
    flat planes ``x`` (C x 34 x 4) only: ``out[(h, w), f]`` = ``scale * relu(b[f] + sum of
    x[c, h+dh, w+dw] * w[(c, dh, dw), f]) + shift``; then the second convolution's receptive
    fields of ``out`` as the rows of ``cols``: ``cols[(h, w), (dh, dw, f)] = out[(h+dh, w+dw), f]``."""
    rows, width, kh, kw = N_ROWS, N_COLS, 5, 2
    out_rows, out_cols = rows - kh + 1, width - kw + 1
    filters = w.shape[1]
    for p in range(out_rows * out_cols):
        for f in range(filters):
            out[p, f] = b[f]
    for k in range(x.shape[0]):
        v = x[k]
        if v == 0.0:
            continue
        c = k // (rows * width)
        r = k - c * rows * width
        h = r // width
        col = r - h * width
        for dh in range(kh):
            oh = h - dh
            if oh < 0 or oh >= out_rows:
                continue
            for dw in range(kw):
                oc = col - dw
                if oc < 0 or oc >= out_cols:
                    continue
                row = (c * kh + dh) * kw + dw
                p = oh * out_cols + oc
                for f in range(filters):
                    out[p, f] += v * w[row, f]
    for p in range(out_rows * out_cols):
        for f in range(filters):
            a = out[p, f]
            out[p, f] = scale[p, f] * (a if a > 0.0 else 0.0) + shift[p, f]
    next_rows, next_cols = out_rows - kh + 1, out_cols - kw + 1
    for oh in range(next_rows):
        for oc in range(next_cols):
            q = oh * next_cols + oc
            j = 0
            for dh in range(kh):
                for dw in range(kw):
                    p = (oh + dh) * out_cols + oc + dw
                    for f in range(filters):
                        cols[q, j + f] = out[p, f]
                    j += filters


def _fold_into(linear: nn.Linear, scale: torch.Tensor, shift: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(weight, bias) of ``linear(scale * x + shift)`` as one linear map of ``x``."""
    return (linear.weight * scale[None, :]).detach().clone(), (linear.bias + linear.weight @ shift).detach().clone()


def widen_inputs(net: GaoNet, config: NetConfig) -> GaoNet:
    """``net`` as a net of ``config``, which reads the same planes and more after them: the
    first convolution's weights of the new planes are zero, so the new net computes exactly
    what ``net`` did until training teaches it to read them (a larger feature set learned
    from trained weights, not from scratch)."""
    same = replace(net.config, in_planes=config.in_planes, features=config.features,
                   threshold=config.threshold, dropout=config.dropout)
    if same != config or config.in_planes < net.config.in_planes:
        raise ValueError(f"cannot widen {net.config} to {config}")
    wide = GaoNet(config)
    state = net.state_dict()
    conv = "layers.0.weight"
    grown = torch.zeros_like(wide.state_dict()[conv])
    grown[:, : net.config.in_planes] = state[conv]
    wide.load_state_dict({**state, conv: grown})
    return wide.to(next(net.parameters()).device).eval()


def keras_param_count(model: nn.Module) -> tuple[int, int]:
    """(total, non-trainable) parameters as Keras counts them.

    Keras counts batch-norm moving means and variances as non-trainable weights; PyTorch
    keeps them as buffers. ``num_batches_tracked`` has no Keras counterpart.
    """
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    frozen = sum(
        b.numel() for name, b in model.named_buffers() if name.endswith(("running_mean", "running_var"))
    )
    return trainable + frozen, frozen


# --- checkpoints ---------------------------------------------------------------------

def save_checkpoint(model: GaoNet, path, *, meta: dict | None = None, half: bool = False) -> None:
    """Write a self-describing checkpoint: ``{"config", "state_dict", "meta"}``.

    ``half=True`` stores float tensors as float16 (the shipped default weights).
    """
    state = {
        k: (v.half() if half and v.is_floating_point() else v).detach().cpu()
        for k, v in model.state_dict().items()
    }
    torch.save({"config": model.config.to_dict(), "state_dict": state, "meta": meta or {}}, path)


def load_checkpoint(path, *, task: str | None = None, device: str = "cpu") -> GaoNet:
    """Rebuild a net from a checkpoint's own config; :class:`ModelFileError` names the file
    when it is missing, unreadable, of the wrong task or does not fit its config."""
    try:
        blob = torch.load(path, map_location=device, weights_only=True)
    except FileNotFoundError:
        raise ModelFileError(f"{path}: model file not found") from None
    except Exception as exc:  # a truncated or foreign file
        raise ModelFileError(f"{path}: not a readable checkpoint ({exc.__class__.__name__})") from None
    if not isinstance(blob, dict) or "config" not in blob or "state_dict" not in blob:
        raise ModelFileError(f"{path}: checkpoint lacks 'config' or 'state_dict'")
    try:
        config = NetConfig.from_dict(blob["config"])
        model = GaoNet(config)
    except (TypeError, ValueError, KeyError, ModelFileError) as exc:
        raise ModelFileError(f"{path}: bad net config: {exc}") from None
    if task is not None and config.task != task:
        raise ModelFileError(f"{path}: holds a {config.task!r} net, expected {task!r}")
    state = {k: v.float() if v.is_floating_point() else v for k, v in blob["state_dict"].items()}
    try:
        model.load_state_dict(state)
    except RuntimeError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "mismatch"
        raise ModelFileError(f"{path}: weights do not fit the net config ({first})") from None
    model.to(device).eval()
    return model
