"""cnn-bot's decision flow over the legal mjai actions (spec §6.2, [PROPOSAL] order).

1. win if the engine allows it (T§7.5);
2. on its own turn: an isolated closed kan (T§7.3.3), else riichi if the riichi net says so
   (T§7.4), else the discard net's best *legal* tile kind (the mask is a safety net the
   paper did not need, spec §6.2 [PROPOSAL]);
3. on another seat's discard: pon net and chi net; when both want to call, the more confident
   one wins (spec §6.2 [PROPOSAL]); never an open kan; else pass.

A binary decision acts when the net's probability of acting (riichi, pon; for chi the allowed
chi classes together, the likeliest of them played) passes the net's ``threshold``: 0.5, or
the one chosen on held-out games when the net was trained (``cnn.train_bot``).
"""
from __future__ import annotations

import shutil
from itertools import permutations
from pathlib import Path

import numpy as np
import torch

from cnn.bot_data import pack
from cnn.encoders import MODEL_PLANES, SeatHistory, channels, offered_kind, suit_rows
from cnn.features import SAFETY, feature_planes, load_feature_models, task_features
from cnn.nets import FoldedNet, GaoNet, load_checkpoint, save_checkpoint
from cnn.rules import chi_class, kan_choice, red_count
from game.errors import MahjongError, ModelFileError
from game.tiles import mjai_to_kind

TASKS = ("discard", "pon", "chi", "riichi")
#: The nets that act above a threshold (the discard net takes its best legal tile).
THRESHOLD_TASKS = ("pon", "chi", "riichi")
DEFAULT_MODELS = Path(__file__).resolve().parent / "models"


def check_threshold(task: str, value: float) -> float:
    """``value`` as the act threshold of the ``task`` net: :class:`MahjongError` unless
    ``task`` is one of :data:`THRESHOLD_TASKS` and ``0 < value < 1``."""
    if task not in THRESHOLD_TASKS:
        raise MahjongError(f"{task!r} has no act threshold; the nets that have one: {', '.join(THRESHOLD_TASKS)}")
    if not 0.0 < float(value) < 1.0:
        raise MahjongError(f"the {task} threshold must be in (0, 1), got {value}")
    return float(value)


def input_channels(net: GaoNet) -> list[int]:
    """Full-tensor channels a net reads: its variant's, plus the offer plane when it has one,
    plus its task's decision features when it was trained with them."""
    cfg = net.config
    base = MODEL_PLANES[cfg.model]
    extra = len(task_features(cfg.task, cfg.features))
    if cfg.in_planes - extra not in (base, base + 1):
        raise ModelFileError(f"{cfg.task} net has {cfg.in_planes} planes; {cfg.model} has {base}"
                             + (f" and {extra} feature planes" if extra else ""))
    return channels(cfg.model, offer=cfg.in_planes - extra == base + 1, task=cfg.task,
                    features=cfg.features)


def load_nets(models_dir: Path | str | None = None, device: str = "cpu",
              tasks: tuple[str, ...] = TASKS) -> dict[str, GaoNet]:
    """The nets ``discard.pt pon.pt chi.pt riichi.pt`` of a folder (default: shipped), or those
    of ``tasks`` only."""
    folder = Path(models_dir) if models_dir is not None else DEFAULT_MODELS
    nets = {task: load_checkpoint(folder / f"{task}.pt", task=task, device=device) for task in tasks}
    for net in nets.values():
        input_channels(net)
    if any(set(task_features(task, net.config.features)) & set(SAFETY) for task, net in nets.items()):
        load_feature_models()
    return nets


def save_nets(net: GaoNet, task: str, folder: Path, others: Path, *, meta: dict, half: bool) -> None:
    """A folder :func:`load_nets` reads: ``net`` as its ``task`` net and the other tasks' nets
    copied from the folder ``others`` (a checkpoint of a run that trains one net)."""
    folder.mkdir(parents=True, exist_ok=True)
    for other in TASKS:
        if other != task:
            shutil.copyfile(Path(others) / f"{other}.pt", folder / f"{other}.pt")
    save_checkpoint(net, folder / f"{task}.pt", meta=meta, half=half)


def suit_views(n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The first ``n`` (1-6) of the six orders of the three suits, the identity first, as
    :func:`suit_rows` pairs: the views a decision's nets are averaged over."""
    if not 1 <= int(n) <= 6:
        raise MahjongError(f"views must be 1-6 (the orders of the three suits), got {n}")
    return [suit_rows(np.array(p)) for p in list(permutations(range(3)))[: int(n)]]


def masked_argmax(scores: np.ndarray, mask: np.ndarray) -> int:
    """Index of the best score among ``mask``; the first allowed index if all tie."""
    if not mask.any():
        raise ValueError("no allowed index")
    return int(np.argmax(np.where(mask, scores, -np.inf)))


def dahai_for_kind(legal: list[dict], kind: int) -> dict:
    """The legal discard of ``kind``: keep red fives, prefer the drawn tile (tsumogiri)."""
    options = [a for a in legal if a["type"] == "dahai" and mjai_to_kind(a["pai"]) == kind]
    options.sort(key=lambda a: (a["pai"].endswith("r"), not a.get("tsumogiri", False)))
    return options[0]


class CnnPolicy:
    """The four nets and the decision flow; holds no game state of its own.

    ``sampler`` (a numpy Generator, for policy-gradient self-play) draws the discard from the
    net's softmax over the legal kinds instead of taking its best, and appends
    ``(packed planes, legal mask, kind, hand)`` to ``trace`` for the update, ``hand`` being
    the hand's ``(round wind, kyoku, honba)`` (0-based, as in the table state).

    The nets are played in eval mode through :class:`cnn.nets.FoldedNet` copies made at their
    first use: weights changed in place afterwards need a new policy (replacing ``nets[task]``
    is seen).
    """

    def __init__(self, nets: dict[str, GaoNet], device: str = "cpu",
                 sampler: np.random.Generator | None = None, views: int = 1):
        self.nets = nets
        self.views = suit_views(views)
        self.device = device
        self.chans = {task: input_channels(net) for task, net in nets.items()}
        self.features = any(net.config.features for net in nets.values())
        self.safety = any(set(c) & set(SAFETY) for c in self.chans.values())
        self.sampler = sampler
        self._folded: dict[str, FoldedNet] = {}
        self.trace: list[tuple[np.ndarray, np.ndarray, int, tuple[int, int, int]]] = []

    @torch.no_grad()
    def probs(self, task: str, planes: np.ndarray) -> np.ndarray:
        """Softmax output of one net for full ``(N_PLANES, 34, 4)`` planes or a batch of them."""
        batch = planes[None] if planes.ndim == 3 else planes
        x = np.ascontiguousarray(batch[:, self.chans[task]], dtype=np.float32)
        if len(self.views) > 1:
            return self._view_mean(task, x)[0] if planes.ndim == 3 else self._view_mean(task, x)
        out = self._softmax(task, x)
        return out[0] if planes.ndim == 3 else out

    def _softmax(self, task: str, x: np.ndarray) -> np.ndarray:
        """Softmax of ``task``'s net on the batch ``x``, by its :class:`FoldedNet` (folded at
        first use, again when ``nets[task]`` is replaced by another net)."""
        net = self.nets[task]
        folded = self._folded.get(task)
        if folded is None or folded.source is not net:
            folded = self._folded[task] = FoldedNet(net)
        return torch.softmax(folded(torch.from_numpy(x).to(self.device)), dim=1).cpu().numpy()

    def _view_mean(self, task: str, x: np.ndarray) -> np.ndarray:
        """The softmax averaged over the suit-exchanged views of ``x`` (one batch), each
        discard output moved back to the original kinds."""
        n = len(x)
        views = np.concatenate([x[:, :, rows] for rows, _ in self.views])
        out = self._softmax(task, views).reshape(len(self.views), n, -1)
        if task == "discard":
            out = np.stack([o[:, new_row] for o, (_, new_row) in zip(out, self.views)])
        return out.mean(axis=0)

    def decide(self, state, history: SeatHistory, legal: list[dict]) -> dict:
        """One element of ``legal`` for the seat whose TableState is ``state``."""
        types = {a["type"] for a in legal}
        for action in legal:
            if action["type"] == "hora":
                return action
        if len(legal) == 1:
            return legal[0]
        if "dahai" in types or "reach" in types or "ankan" in types:
            return self._own_turn(state, history, legal, types)
        if "pon" in types or "chi" in types:
            return self._call(state, history, legal, types)
        return next((a for a in legal if a["type"] == "none"), legal[0])

    def _features(self, state, legal: list[dict]) -> np.ndarray | None:
        return feature_planes(state, legal, safety=self.safety) if self.features else None

    def _own_turn(self, state, history, legal, types) -> dict:
        kan = kan_choice(np.asarray(state.hand), legal)
        if kan is not None:
            return kan
        planes = history.encode(state, discard_decision="dahai" in types,
                                features=self._features(state, legal))
        if "reach" in types and self.probs("riichi", planes)[1] > self.nets["riichi"].config.threshold:
            return next(a for a in legal if a["type"] == "reach")
        if "dahai" not in types:  # e.g. only kakan / ryukyoku besides something odd
            return next((a for a in legal if a["type"] not in ("kakan", "ryukyoku")), legal[0])
        mask = np.zeros(34, dtype=bool)
        for a in legal:
            if a["type"] == "dahai":
                mask[mjai_to_kind(a["pai"])] = True
        probs = self.probs("discard", planes)
        if self.sampler is None:
            return dahai_for_kind(legal, masked_argmax(probs, mask))
        p = np.where(mask, probs.astype(np.float64), 0.0)
        kind = int(self.sampler.choice(34, p=p / p.sum()))
        self.trace.append((pack(planes), mask, kind, (int(state.round_wind), int(state.kyoku), int(state.honba))))
        return dahai_for_kind(legal, kind)

    def _call(self, state, history, legal, types) -> dict:
        planes = history.encode(state, discard_decision=False, offered=offered_kind(state),
                                features=self._features(state, legal))
        best, best_p = None, 0.0
        if "pon" in types:
            p = float(self.probs("pon", planes)[1])
            if p > self.nets["pon"].config.threshold:  # 0.5 unless chosen on held-out data
                pons = [a for a in legal if a["type"] == "pon"]
                best, best_p = max(pons, key=red_count), p
        if "chi" in types:
            chis = [a for a in legal if a["type"] == "chi"]
            probs = self.probs("chi", planes)
            allowed = {chi_class(a) for a in chis}
            mask = np.array([True] + [c in allowed for c in (1, 2, 3)])
            # call when the allowed chi classes together pass the net's threshold, with the likeliest
            p_call = float(probs[1:][mask[1:]].sum())
            cls = masked_argmax(probs, np.array([False] + list(mask[1:])))
            if p_call > self.nets["chi"].config.threshold and p_call > best_p:
                best = max((a for a in chis if chi_class(a) == cls), key=red_count)
        if best is not None:
            return best
        return next((a for a in legal if a["type"] == "none"), legal[0])
