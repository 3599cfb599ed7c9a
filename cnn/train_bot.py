"""Train cnn-bot's nets from game records (T§4.2-4.4, §7.6; P§V-VI; spec §3.6, §4).

    python -m cnn.train_bot --records 'runs/selfplay/*.mjson' --model m86 --out runs/cnnbot

Adam (lr 1e-3), batch 256, dropout 0.5, categorical cross-entropy, as the paper. The dataset
is built once into ``OUT/dataset.npz`` (bit-packed planes) and reused while the record files
stay the same. A held-out share of the *games* measures accuracy after every epoch; the
epoch with the best held-out accuracy (with ``--regret-weight``: the least regret in the
teacher's values) is kept as ``OUT/<task>.pt`` (a self-describing checkpoint: config + state
dict; ``--half`` stores float16 as the shipped weights).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from cnn.bot_data import TASKS, cache_path, load_or_build, merge, unpack
from cnn.encoders import MODEL_PLANES, channels, suit_rows
from cnn.features import FEATURE_SETS, task_features
from cnn.nets import GaoNet, NetConfig, load_checkpoint, save_checkpoint, widen_inputs
from cnn.policy import save_nets
from cnn.splits import split_heldout
from game.cli import reports_errors
from game.errors import MahjongError
from regressors.datasets import read_npz

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


def net_config(task: str, model: str, *, fc300: bool, bn_axis: str,
               features: int = 0, dropout: float = 0.5) -> NetConfig:
    offer = task in OFFER_TASKS
    extra = len(task_features(task, features))
    return NetConfig(task=task, model=model, in_planes=MODEL_PLANES[model] + int(offer) + extra,
                     fc300=fc300, bn_axis=bn_axis, features=features, dropout=dropout)


def _batches(n: int, size: int, rng: np.random.Generator | None):
    order = rng.permutation(n) if rng is not None else np.arange(n)
    for i in range(0, n, size):
        yield order[i : i + size]


def predict(net: GaoNet, x: np.ndarray, chans: list[int], device: str,
            mask: np.ndarray | None = None, batch: int = 1024) -> np.ndarray:
    """Top-1 class of every sample (masked to ``mask`` when given)."""
    net.eval()
    out = np.empty(len(x), dtype=np.int64)
    with torch.no_grad():
        for idx in _batches(len(x), batch, None):
            logits = net(torch.from_numpy(unpack(x[idx], chans)).to(device)).cpu().numpy()
            if mask is not None:
                logits = np.where(mask[idx], logits, -np.inf)
            out[idx] = logits.argmax(1)
    return out


def evaluate(net: GaoNet, x: np.ndarray, y: np.ndarray, chans: list[int], device: str,
             mask: np.ndarray | None = None, batch: int = 1024) -> float:
    """Top-1 accuracy (masked to ``mask`` when given)."""
    if len(y) == 0:
        return float("nan")
    return float((predict(net, x, chans, device, mask, batch) == y).mean())


def soft_targets(values: np.ndarray, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """The teacher's values of each discard kind as a distribution: ``softmax(values / tau)``
    over the valued kinds (distillation of the teacher's action values, Hinton et al. 2015;
    the values are minus expected final ranks, so ``tau`` is in rank units), and which rows
    have one (two or more valued kinds)."""
    finite = np.isfinite(values)
    has = finite.sum(axis=1) >= 2
    z = np.where(finite, values.astype(np.float64), -np.inf) / tau  # differences of ~1e-3 rank
    z = z - np.where(has[:, None], z.max(axis=1, keepdims=True, initial=-np.inf), 0.0)
    p = np.where(finite & has[:, None], np.exp(np.where(finite, z, -np.inf)), 0.0)
    p[has] /= p[has].sum(axis=1, keepdims=True)
    return p.astype(np.float32), has


def teacher_regret(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What each discard kind loses against the teacher's best, in its values (minus expected
    final ranks, so in ranks; 0 where a kind has no value), and which rows have two or more
    valued kinds. The expected regret of a policy is its probabilities times this row."""
    finite = np.isfinite(values)
    has = finite.sum(axis=1) >= 2
    best = np.where(finite, values, -np.inf).max(axis=1, initial=-np.inf)
    regret = np.where(finite & has[:, None], best[:, None] - np.where(finite, values, 0.0), 0.0)
    return regret.astype(np.float32), has


def balanced_accuracy(pred: np.ndarray, y: np.ndarray) -> float:
    """Mean recall over the classes present in ``y`` (a one-class net scores 1 / #classes)."""
    classes = np.unique(y)
    if len(classes) == 0:
        return float("nan")
    return float(np.mean([(pred[y == c] == c).mean() for c in classes]))


def act_probability(net: GaoNet, x: np.ndarray, chans: list[int], device: str,
                    batch: int = 1024) -> np.ndarray:
    """P(act) of every sample: the classes other than 0 (pass / no riichi) together."""
    net.eval()
    out = []
    with torch.no_grad():
        for idx in _batches(len(x), batch, None):
            logits = net(torch.from_numpy(unpack(x[idx], chans)).to(device))
            out.append(1.0 - torch.softmax(logits, 1)[:, 0].cpu().numpy())
    return np.concatenate(out) if out else np.zeros(0)


def heldout_scores(net: GaoNet, x: np.ndarray, y: np.ndarray, chans: list[int], device: str,
                   mask: np.ndarray | None = None,
                   values: np.ndarray | None = None) -> tuple[float, float, float]:
    """(top-1 accuracy, balanced accuracy, the teacher's mean regret of the net's top-1 over
    the samples it values; NaN where there is nothing to score)."""
    if len(y) == 0:
        return float("nan"), float("nan"), float("nan")
    pred = predict(net, x, chans, device, mask)
    val_regret = float("nan")
    if values is not None:
        regret, has = teacher_regret(values)
        if has.any():
            val_regret = float(regret[np.arange(len(y)), pred][has].mean())
    return float((pred == y).mean()), balanced_accuracy(pred, y), val_regret


THRESHOLD_RULES = ("rate", "accuracy")


def choose_threshold(p_act: np.ndarray, acted: np.ndarray, rule: str = "rate") -> float:
    """The threshold on P(act) chosen on held-out samples (0.5 when there is nothing to
    choose on). A class-weighted net's 0.5 is the balanced point, not the teacher's: it acts
    far more often than the teacher does. ``rule="rate"``: the net acts as often as the
    records do (the quantile of P(act) at one minus their rate); ``"accuracy"``: the best
    held-out accuracy (midway between two scores), which on a rare class acts much less often
    than the teacher (chi: 3.6 % of offers against the records' 10.7 %)."""
    if len(p_act) == 0 or acted.all() or not acted.any():
        return 0.5
    if rule == "rate":
        return float(np.quantile(p_act, 1.0 - acted.mean()))
    order = np.sort(np.unique(p_act))
    cuts = np.concatenate([[0.0], (order[:-1] + order[1:]) / 2, [1.0]])
    acc = [((p_act > c) == acted).mean() for c in cuts]
    return float(cuts[int(np.argmax(acc))])


def class_weights(y: np.ndarray, n_classes: int) -> np.ndarray:
    """Inverse class frequency, normalised so a balanced set weighs 1 a sample; absent classes 0."""
    counts = np.bincount(y, minlength=n_classes).astype(np.float64)
    present = counts > 0
    w = np.zeros(n_classes)
    w[present] = counts.sum() / (present.sum() * counts[present])
    return w


def recalibrate_bn(net: GaoNet, x: np.ndarray, rows: np.ndarray, chans: list[int], device: str,
                   batches: int, batch: int, seed: int) -> None:
    """Re-estimate the batch-norm running statistics on ``batches`` training batches.

    Keras' momentum 0.99 (``KERAS_BN_MOMENTUM``) needs hundreds of steps before the running
    means and variances used at inference forget their initial 0 / 1; after a short CPU run
    they are still far off and the eval-mode net is much worse than the trained one. This
    averages the statistics of the current weights (cumulative average, dropout off) and
    leaves every trained weight unchanged.
    """
    bns = [m for m in net.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    saved = [m.momentum for m in bns]
    net.eval()
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative moving average over the batches below
        m.train()
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for _ in range(batches):
            pick = rows[rng.integers(0, len(rows), min(batch, len(rows)))]
            net(torch.from_numpy(unpack(x[pick], chans)).to(device))
    for m, mom in zip(bns, saved):
        m.momentum = mom
    net.eval()


def _widened(start: GaoNet, config: NetConfig, init: Path, log) -> GaoNet:
    """``start`` reading ``config``'s larger feature set, when that set extends its own (the
    new planes come last, their weights zero); else ``start`` unchanged (the caller names the
    mismatch)."""
    old = task_features(config.task, start.config.features)
    new = task_features(config.task, config.features)
    if new[: len(old)] != old:
        return start
    log(f"{config.task}: {init} widened from feature set {start.config.features} to "
        f"{config.features} (the {len(new) - len(old)} new planes start at weight 0)")
    return widen_inputs(start, config)


def train_task(task: str, data: dict[str, np.ndarray], args, device: str, log) -> dict:
    x, y, games = data[f"{task}_x"], data[f"{task}_y"].astype(np.int64), data[f"{task}_game"]
    mask = data["discard_mask"] if task == "discard" else None
    teacher = task == "discard" and (args.soft_targets or args.regret_weight or args.score_only)
    values = data.get("discard_value") if teacher else None
    if values is not None and args.soft_targets:
        log(f"discard: soft targets (tau {args.soft_targets}, weight {args.soft_weight}) on "
            f"{int(soft_targets(values, args.soft_targets)[1].sum())} of {len(y)} samples")
    if values is not None and args.regret_weight:
        log(f"discard: the teacher's expected regret x {args.regret_weight} on "
            f"{int(teacher_regret(values)[1].sum())} of {len(y)} samples; the best step is the "
            "least held-out regret")
    config = net_config(task, args.model, fc300=not args.no_fc300, bn_axis=args.bn_axis,
                        features=args.features, dropout=args.dropout)
    if args.threshold_only:
        return _threshold_only(task, x, y, games, config, args, device, log)
    if len(y) < 2:
        log(f"{task}: {len(y)} samples, nothing to train")
        return {"task": task, "samples": int(len(y)), "trained": False}
    held = split_games(games, args.holdout, args.split_seed)
    tr, va = np.flatnonzero(~held), np.flatnonzero(held)
    chans = channels(args.model, offer=task in OFFER_TASKS, task=task, features=args.features)
    torch.manual_seed(args.seed)
    net = GaoNet(config).to(device)
    init = Path(args.init) / f"{task}.pt" if args.init else None
    if init is not None and init.exists():
        start = load_checkpoint(init, task=task, device=device)
        if start.config.features != config.features and config.features:
            start = _widened(start, config, init, log)
        # the act threshold is chosen anew after training, the dropout rate is training's
        # own: only the net's shape must match
        if replace(start.config, threshold=config.threshold, dropout=config.dropout) != config:
            raise MahjongError(f"{init}: its net config {start.config} differs from {config}")
        net = start
        net.config = replace(net.config, threshold=config.threshold, dropout=config.dropout)
        for layer in net.modules():
            if isinstance(layer, nn.Dropout):
                layer.p = config.dropout
        log(f"{task}: starting from {init}")
    if args.score_only:
        return _score_only(task, net, x, y, va, chans, device, mask, values, init, log)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    counts = np.bincount(y[tr], minlength=config.n_classes)
    weighted = args.class_weight == "inverse" and task != "discard"
    weight = torch.tensor(class_weights(y[tr], config.n_classes), dtype=torch.float32) if weighted else None
    loss_fn = nn.CrossEntropyLoss(weight=None if weight is None else weight.to(device))
    masked_loss = args.mask_loss and mask is not None
    if task != "discard":
        log(f"{task}: training classes {counts.tolist()}"
            + (f", loss weights {[round(float(w), 3) for w in weight]}" if weighted else ", unweighted loss"))
    rng = np.random.default_rng(args.seed)
    best = {"epoch": 0, "step": 0, "score": -1.0}
    out = Path(args.out) / f"{task}.pt"
    total_steps = 0

    def checkpoint(epoch: int, train_acc: float, loss: float) -> None:
        """Held-out score now; save when it is the best so far (T§4.2: keep the best epoch)."""
        nonlocal best
        if args.bn_recalibrate:
            recalibrate_bn(net, x, tr, chans, device, args.bn_recalibrate, args.batch, args.seed + total_steps)
        val_acc, val_bal, val_regret = heldout_scores(net, x[va], y[va], chans, device,
                                                      None if mask is None else mask[va],
                                                      None if values is None else values[va])
        log(f"{task} epoch {epoch} step {total_steps}: loss {loss:.4f} train_acc {train_acc:.4f} "
            f"val_acc {val_acc:.4f} val_balanced_acc {val_bal:.4f}"
            + (f" val_regret {val_regret:.5f}" if values is not None else "")
            + f" (train {len(tr)}, held-out {len(va)})")
        # A class-weighted net is chosen by balanced accuracy, else plain accuracy would
        # prefer the majority-class net the weighting is there to avoid; a regret-trained one
        # by the teacher's value it keeps.
        score = val_bal if weighted else val_acc
        if args.regret_weight and not np.isnan(val_regret):
            score = -val_regret
        if np.isnan(score):
            score = train_acc
        meta = {"task": task, "epoch": epoch, "step": total_steps, "train_samples": int(len(tr)),
                "heldout_samples": int(len(va)), "val_acc": val_acc, "val_balanced_acc": val_bal,
                "val_regret": val_regret,
                "train_acc": train_acc, "records": args.records, "thesis_sampling": args.thesis_sampling,
                "class_weight": args.class_weight if weighted else "none", "mask_loss": masked_loss,
                "augment_suits": args.augment_suits}
        if score > best["score"]:
            best = {"epoch": epoch, "step": total_steps, "score": score, "val_acc": val_acc,
                    "val_balanced_acc": val_bal, "val_regret": val_regret, "train_acc": train_acc}
            save_checkpoint(net, out, meta=meta, half=args.half)
        if args.keep_steps:
            keep_step(net, meta)
        net.train()

    def keep_step(net_now: nn.Module, meta: dict) -> None:
        """``--keep-steps``: the four nets at this step, the other three ``--init``'s, as
        ``OUT/ckpt/uNNNN`` (the folder ``player.reinforce --curve`` plays)."""
        save_nets(net_now, task, out.parent / "ckpt" / f"u{total_steps:04d}", Path(args.init), meta=meta,
                  half=args.half)

    if args.keep_steps:
        keep_step(net, {"task": task, "step": 0, "init": str(init)})

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
            xb, yb = unpack(x[rows], chans), y[rows]
            legal = mask[rows] if masked_loss else None
            vb = None if values is None else values[rows]
            if args.augment_suits:
                kinds, new_row = suit_rows(rng.permutation(3))
                xb = np.ascontiguousarray(xb[:, :, kinds])
                if task == "discard":
                    yb = new_row[yb]
                    legal = None if legal is None else legal[:, kinds]
                    vb = None if vb is None else vb[:, kinds]
            xb, yb = torch.from_numpy(xb).to(device), torch.from_numpy(yb).to(device)
            logits = net(xb)
            if masked_loss:  # softmax over the legal discards only [deviation, --mask-loss]
                logits = logits.masked_fill(~torch.from_numpy(legal).to(device), -1e4)
            loss = loss_fn(logits, yb)
            if vb is not None and args.soft_targets:
                loss = _with_soft_targets(loss, logits, vb, args.soft_targets, args.soft_weight, device)
            if vb is not None and args.regret_weight:
                loss = loss + args.regret_weight * _expected_regret(logits, vb, device)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total_loss += loss.item() * len(rows)
            hits += int((logits.argmax(1) == yb).sum())
            seen += len(rows)
            steps += 1
            total_steps += 1
            if args.eval_every and total_steps % args.eval_every == 0:
                checkpoint(epoch, hits / max(seen, 1), total_loss / max(seen, 1))
            if args.max_steps and steps >= args.max_steps:
                break
        if not (args.eval_every and total_steps % args.eval_every == 0):
            checkpoint(epoch, hits / max(seen, 1), total_loss / max(seen, 1))
    if task != "discard" and len(va) and out.exists():
        best["threshold"] = _set_threshold(out, x[va], y[va], chans, device, args.half, log,
                                           args.threshold_rule)
    return {"task": task, "samples": int(len(y)), "classes": counts.tolist(), "trained": True,
            "best": best, "path": str(out)}


def _check_keep_steps(args, tasks: list[str]) -> None:
    """``--keep-steps`` trains the discard net from ``--init``'s four (a call or riichi net's
    threshold is chosen after training, so its steps would play at the default) into an
    ``OUT/ckpt`` of its own."""
    if tasks != ["discard"] or not args.init or args.score_only or args.threshold_only:
        raise MahjongError("--keep-steps trains --tasks discard from --init (the other three nets of each "
                           "step are --init's), not with --score-only or --threshold-only")
    missing = [f"{t}.pt" for t in TASKS if not (Path(args.init) / f"{t}.pt").is_file()]
    if missing:
        raise MahjongError(f"--keep-steps: {args.init} lacks {', '.join(missing)}")
    ckpt = Path(args.out) / "ckpt"
    if ckpt.is_dir() and any(ckpt.iterdir()):
        raise MahjongError(f"--keep-steps: {ckpt} holds an earlier run's checkpoints; choose another --out")


def _with_soft_targets(hard: torch.Tensor, logits: torch.Tensor, values: np.ndarray, tau: float,
                       weight: float, device: str) -> torch.Tensor:
    """``(1 - weight)`` x the hard label's cross-entropy + ``weight`` x the cross-entropy
    with the teacher's soft targets, on the rows that have them (the rest: hard only)."""
    target, has = soft_targets(values, tau)
    if not has.any():
        return hard
    rows = torch.from_numpy(np.flatnonzero(has)).to(device)
    logp = torch.log_softmax(logits[rows], dim=1)
    soft = -(torch.from_numpy(target[has]).to(device) * logp).sum(dim=1).mean()
    share = float(has.mean())
    return (1.0 - weight * share) * hard + weight * share * soft


def _expected_regret(logits: torch.Tensor, values: np.ndarray, device: str) -> torch.Tensor:
    """The teacher's value the net's policy loses on average, ``sum_a pi(a) (max V - V(a))``,
    over the batch (rows without the teacher's values count 0): a loss whose gradient on a
    sample grows with what its mistakes cost, so the discards that matter weigh most. The
    teacher values every legal kind, so ``logits`` must be masked to the legal ones
    (``--mask-loss``), else an illegal kind would look as good as the best."""
    regret, _ = teacher_regret(values)
    probs = torch.softmax(logits, dim=1)
    return (probs * torch.from_numpy(regret).to(device)).sum(dim=1).mean()


def _score_only(task: str, net: GaoNet, x, y, va, chans, device: str, mask, values, init, log) -> dict:
    """The held-out scores of the ``--init`` net as it is: nothing trained, no log or summary."""
    if init is None or not init.exists():
        raise MahjongError(f"--score-only needs a {task} net in --init (none at {init})")
    acc, bal, regret = heldout_scores(net, x[va], y[va], chans, device,
                                      None if mask is None else mask[va],
                                      None if values is None else values[va])
    log(f"{task} {init}: val_acc {acc:.4f} val_balanced_acc {bal:.4f}"
        + (f" val_regret {regret:.5f}" if values is not None else "") + f" (held-out {len(va)})")
    return {"task": task, "init": str(init), "val_acc": acc, "val_balanced_acc": bal,
            "val_regret": regret, "heldout_samples": int(len(va)), "trained": False}


def _threshold_only(task: str, x, y, games, config: NetConfig, args, device: str, log) -> dict:
    """Re-choose the threshold of ``OUT/<task>.pt`` on the same held-out games, no training."""
    out = Path(args.out) / f"{task}.pt"
    if task == "discard":
        return {"task": task, "trained": False}
    if load_checkpoint(out, task=task, device=device).config.in_planes != config.in_planes:
        raise MahjongError(f"{out}: its planes differ from --model / --features")
    va = np.flatnonzero(split_games(games, args.holdout, args.split_seed))
    chans = channels(args.model, offer=task in OFFER_TASKS, task=task, features=args.features)
    threshold = _set_threshold(out, x[va], y[va], chans, device, args.half, log, args.threshold_rule)
    return {"task": task, "trained": False, "threshold": threshold, "path": str(out)}


def _set_threshold(path: Path, x: np.ndarray, y: np.ndarray, chans: list[int], device: str,
                   half: bool, log, rule: str) -> float:
    """Store in the kept checkpoint the act threshold chosen on the held-out games."""
    blob = torch.load(path, map_location=device, weights_only=True)
    net = load_checkpoint(path, device=device)
    p_act = act_probability(net, x, chans, device)
    threshold = choose_threshold(p_act, y > 0, rule)
    net.config = replace(net.config, threshold=threshold)
    acts = p_act > threshold
    meta = {**blob.get("meta", {}), "threshold_rule": rule,
            "threshold_heldout_acc": float((acts == (y > 0)).mean()),
            "heldout_act_rate": float((y > 0).mean()), "act_rate_at_threshold": float(acts.mean())}
    save_checkpoint(net, path, meta=meta, half=half)
    log(f"{path.stem}: threshold {threshold:.3f} ({rule}) on the held-out games: accuracy "
        f"{meta['threshold_heldout_acc']:.4f}, acts on {meta['act_rate_at_threshold']:.3f} "
        f"(the records: {meta['heldout_act_rate']:.3f})")
    return threshold


@reports_errors
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
    ap.add_argument("--extra-dataset", action="append", default=None, metavar="NPZ",
                    help="a further dataset in the same format, added to the records' (e.g. a teacher's "
                         "labels at the student's states, python -m player.relabel); repeatable")
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    ap.add_argument("--mask-loss", action="store_true",
                    help="discard loss over the legal tiles only (deviation: the paper uses all 34)")
    ap.add_argument("--class-weight", default="none", choices=("none", "inverse"),
                    help="pon/chi/riichi loss weights: 'inverse' class frequency of the training "
                         "split (deviation: the thesis used none, T§7.3.1); the best checkpoint is "
                         "then chosen by balanced accuracy")
    ap.add_argument("--eval-every", type=int, default=0,
                    help="also score the held-out games every N steps and keep the best (0 = per epoch)")
    ap.add_argument("--keep-steps", action="store_true",
                    help="the discard net started from --init: also keep the four nets at every held-out score "
                         "(and at the start) as OUT/ckpt/uNNNN, NNNN the step, for a learning curve "
                         "(python -m player.reinforce --out OUT --curve)")
    ap.add_argument("--bn-recalibrate", type=int, default=0, metavar="BATCHES",
                    help="before each held-out score, re-estimate the batch-norm statistics on this "
                         "many training batches (short runs: Keras' slow momentum leaves them unset)")
    ap.add_argument("--augment-suits", action="store_true",
                    help="each training batch with its three suits in a random order (the rules "
                         "treat the suits alike; six times the distinct samples) [deviation]")
    ap.add_argument("--soft-targets", type=float, default=0.0, metavar="TAU",
                    help="discard net: also learn the teacher's action values (player.relabel's "
                         "discard_value) as softmax(value / TAU) targets, TAU in rank units (0 = off)")
    ap.add_argument("--soft-weight", type=float, default=0.5,
                    help="the soft targets' share of the discard loss where a sample has them")
    ap.add_argument("--dropout", type=float, default=0.5,
                    help="dropout rate while training (paper: 0.5; no effect on play); with --init "
                         "the started nets train at this rate")
    ap.add_argument("--regret-weight", type=float, default=0.0, metavar="W",
                    help="discard net: add W x the teacher's expected regret of the net's policy "
                         "(player.relabel's discard_value; ranks lost against its best discard) to the "
                         "loss, and keep the step of least held-out regret (0 = off)")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0 = torch's default)")
    ap.add_argument("--threshold-rule", default="rate", choices=THRESHOLD_RULES,
                    help="how the pon / chi / riichi act threshold is chosen on the held-out games "
                         "(default: the records' act rate)")
    ap.add_argument("--score-only", action="store_true",
                    help="no training: print the --init nets' held-out scores on this split (accuracy; "
                         "for the discard net the teacher's regret where the datasets have its values)")
    ap.add_argument("--threshold-only", action="store_true",
                    help="no training: re-choose the threshold of the nets already in --out")
    ap.add_argument("--players", default=None,
                    help="comma-separated seat names: learn only from those seats in games where one "
                         "of them plays (e.g. 'mdp'); other games count whole")
    ap.add_argument("--features", type=int, nargs="?", const=1, default=0,
                    choices=[0, *FEATURE_SETS],
                    help="nets also read a feature set of cnn.features: 1 = shanten, the calls' "
                         "effect, acceptance, tiles left; 2 = those and the opponents' safe kinds, "
                         "tenpai and danger; 3 = those and the score gaps to each opponent; with --init "
                         "nets of a smaller set are widened, the new planes at weight 0 "
                         "(bare --features: 1) [deviation]")
    args = ap.parse_args(argv)
    return _run(args)


def _run(args) -> int:
    from game.records import iter_record_files

    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    bad = [t for t in tasks if t not in TASKS]
    if bad:
        raise MahjongError(f"unknown task(s) {bad}; known: {', '.join(TASKS)}")
    if args.keep_steps:
        _check_keep_steps(args, tasks)
    if args.regret_weight and not args.mask_loss:
        raise MahjongError("--regret-weight needs --mask-loss (the teacher values the legal discards only)")
    paths = iter_record_files(args.records if "," not in args.records else args.records.split(","))
    paths, held = split_heldout(paths)
    if not paths:
        raise MahjongError(f"no record files match {args.records!r} (besides held-out games)")
    players = frozenset(n.strip() for n in args.players.split(",")) if args.players else None
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if args.threads:
        torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # a score-only run keeps no log or summary: --out may be the folder of the nets it scores
    log_file = None if args.score_only else (out / "train_log.txt").open("a")

    def log(line: str) -> None:
        print(line, flush=True)
        if log_file is not None:
            log_file.write(line + "\n")
            log_file.flush()

    t0 = time.time()
    cache = Path(args.dataset) if args.dataset else out / "dataset.npz"
    data = load_or_build(paths, cache, thesis=args.thesis_sampling, seed=args.seed, players=players,
                         progress=not args.quiet)
    for extra in args.extra_dataset or []:
        part = {k: v for k, v in read_npz(cache_path(extra)).items() if k not in ("key", "meta")}
        width = {v.shape[1] for k, v in part.items() if k.endswith("_x") and v.ndim == 2}
        if width != {data["discard_x"].shape[1]}:
            raise MahjongError(f"{cache_path(extra)}: its samples hold {sorted(width)} bytes of planes, this "
                               f"version's {data['discard_x'].shape[1]} (made before the planes changed: "
                               "make it again)")
        data = merge([data, part])
    counts = {t: int(len(data[f"{t}_y"])) for t in TASKS}
    log(f"dataset {cache}: {len(paths)} files, samples {counts} ({time.time() - t0:.1f}s), device {device}"
        + (f"; {len(held)} held-out phoenix files left out (cnn.splits)" if held else ""))
    summary = [train_task(t, data, args, device, log) for t in tasks]
    if log_file is None:
        print(json.dumps(summary, indent=1))
        return 0
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    log_file.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
