"""cnn-bot's decision flow over the legal mjai actions (spec §6.2, [PROPOSAL] order).

1. win if the engine allows it (T§7.5);
2. on its own turn: an isolated closed kan (T§7.3.3), else riichi if the riichi net says so
   (T§7.4), else the discard net's best *legal* tile kind (the mask is a safety net the
   paper did not need, spec §6.2 [PROPOSAL]);
3. on another seat's discard: pon net and chi net; when both want to call, the more confident
   one wins (spec §6.2 [PROPOSAL]); never an open kan; else pass.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from cnn.encoders import MODEL_PLANES, SeatHistory, channels, offered_kind
from cnn.nets import GaoNet, load_checkpoint
from cnn.rules import chi_class, kan_choice, red_count
from game.errors import ModelFileError
from game.tiles import mjai_to_kind

TASKS = ("discard", "pon", "chi", "riichi")
DEFAULT_MODELS = Path(__file__).resolve().parent / "models"


def input_channels(net: GaoNet) -> list[int]:
    """Full-tensor channels a net reads: its variant's, plus the offer plane when it has one."""
    cfg = net.config
    base = MODEL_PLANES[cfg.model]
    if cfg.in_planes not in (base, base + 1):
        raise ModelFileError(f"{cfg.task} net has {cfg.in_planes} planes; {cfg.model} has {base}")
    return channels(cfg.model, offer=cfg.in_planes == base + 1)


def load_nets(models_dir: Path | str | None = None, device: str = "cpu") -> dict[str, GaoNet]:
    """The four nets ``discard.pt pon.pt chi.pt riichi.pt`` of a folder (default: shipped)."""
    folder = Path(models_dir) if models_dir is not None else DEFAULT_MODELS
    nets = {task: load_checkpoint(folder / f"{task}.pt", task=task, device=device) for task in TASKS}
    for net in nets.values():
        input_channels(net)
    return nets


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
    """The four nets and the decision flow; holds no game state of its own."""

    def __init__(self, nets: dict[str, GaoNet], device: str = "cpu"):
        self.nets = nets
        self.device = device
        self.chans = {task: input_channels(net) for task, net in nets.items()}

    @torch.no_grad()
    def probs(self, task: str, planes: np.ndarray) -> np.ndarray:
        """Softmax output of one net for full ``(87, 34, 4)`` planes or a batch of them."""
        batch = planes[None] if planes.ndim == 3 else planes
        x = torch.from_numpy(np.ascontiguousarray(batch[:, self.chans[task]], dtype=np.float32))
        out = torch.softmax(self.nets[task](x.to(self.device)), dim=1).cpu().numpy()
        return out[0] if planes.ndim == 3 else out

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

    def _own_turn(self, state, history, legal, types) -> dict:
        kan = kan_choice(np.asarray(state.hand), legal)
        if kan is not None:
            return kan
        planes = history.encode(state, discard_decision="dahai" in types)
        if "reach" in types and self.probs("riichi", planes)[1] > 0.5:
            return next(a for a in legal if a["type"] == "reach")
        if "dahai" not in types:  # e.g. only kakan / ryukyoku besides something odd
            return next((a for a in legal if a["type"] not in ("kakan", "ryukyoku")), legal[0])
        mask = np.zeros(34, dtype=bool)
        for a in legal:
            if a["type"] == "dahai":
                mask[mjai_to_kind(a["pai"])] = True
        kind = masked_argmax(self.probs("discard", planes), mask)
        return dahai_for_kind(legal, kind)

    def _call(self, state, history, legal, types) -> dict:
        planes = history.encode(state, discard_decision=False, offered=offered_kind(state))
        best, best_p = None, 0.0
        if "pon" in types:
            p = float(self.probs("pon", planes)[1])
            if p > 0.5:  # binary net: call when "call" is the likelier class
                pons = [a for a in legal if a["type"] == "pon"]
                best, best_p = max(pons, key=red_count), p
        if "chi" in types:
            chis = [a for a in legal if a["type"] == "chi"]
            probs = self.probs("chi", planes)
            allowed = {chi_class(a) for a in chis}
            mask = np.array([True] + [c in allowed for c in (1, 2, 3)])
            cls = masked_argmax(probs, mask)  # 4-class net: its argmax decides
            if cls != 0 and probs[cls] > best_p:
                best = max((a for a in chis if chi_class(a) == cls), key=red_count)
        if best is not None:
            return best
        return next((a for a in legal if a["type"] == "none"), legal[0])
