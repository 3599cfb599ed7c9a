"""Planes of the CNN estimators: one seat's view of the table as uint8[45, 34], and the
planes and labels of every discard of a set of records (:func:`build_planes`).

cnn-bot's encoder (``cnn/encoders.py``, Gao et al.) has no tsumogiri, turn order or
genbutsu planes, which are what tenpai and deal-in reading rest on, so the estimators have
their own. Rows are the 34 kinds; seats are relative to the viewer (0 = self, 1 = next,
2 = across, 3 = previous). Only TableState-contract fields are read.

====== ==========================================================================
ch     content
====== ==========================================================================
0-3    own concealed hand, count >= 1 .. >= 4
4+9r   seat r: discards (count), tsumogiri discards, discards of its last 6 turns,
       discards from its riichi declaration on, meld tiles, riichi (const),
       takes (const), discards made (const), kinds it cannot ron (genbutsu and,
       after riichi, the kinds passed since)
40     copies unseen by the viewer
41     dora (count per kind)
42     live tiles left (const)
43     round wind (row mark)
44     dealer's relative seat (const)
====== ==========================================================================
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from game.errors import RecordError
from game.tiles import dora_from_indicator, mjai_to_kind
from regressors.datasets import _future_labels, cached, read_npz, read_record, write_npz
from regressors.features import n_takes, safe_kinds
from regressors.replay import FullReplay

N_PLANES = 45
# Scale of each channel to about [0, 1] (applied in the network).
SCALE = np.ones(N_PLANES, dtype=np.float32)
for _r in range(4):
    b = 4 + 9 * _r
    SCALE[b:b + 5] = 0.25
    SCALE[b + 6] = 0.25
    SCALE[b + 7] = 1 / 18
SCALE[40] = SCALE[41] = 0.25
SCALE[42] = 1 / 70
SCALE[44] = 1 / 3


def encode(view) -> np.ndarray:
    """uint8[45, 34] planes of ``view``, one seat's ``game.state.TableState``."""
    x = np.zeros((N_PLANES, 34), dtype=np.uint8)
    hand = np.asarray(view.hand, dtype=np.int64)
    for c in range(4):
        x[c] = hand > c
    me = view.seat
    for r in range(4):
        s = (me + r) % 4
        b = 4 + 9 * r
        ds = view.discards[s]
        for d in ds:
            x[b, d.kind] += 1
            if d.tsumogiri:
                x[b + 1, d.kind] += 1
        for d in ds[-6:]:
            x[b + 2, d.kind] += 1
        rt = view.riichi_turn[s] if view.riichi[s] else None
        if rt is not None:
            for d in ds[rt:]:
                x[b + 3, d.kind] += 1
        for m in view.melds[s]:
            for t in m.tiles:
                x[b + 4, t // 4] += 1
        x[b + 5] = 1 if view.riichi[s] else 0
        x[b + 6] = n_takes(view.melds[s])
        x[b + 7] = min(len(ds), 255)
        x[b + 8] = safe_kinds(view, s)
    x[40] = np.minimum(np.asarray(view.unseen), 4)
    for ind in view.dora_indicators:
        x[41, dora_from_indicator(ind // 4)] += 1
    x[42] = max(0, min(int(view.tiles_left), 255))
    x[43, 27 + view.round_wind % 4] = 1
    x[44] = (view.dealer - me) % 4
    return x


def build_planes(files: Iterable[str | Path], progress: bool = False) -> dict[str, np.ndarray]:
    """Planes and labels of every discard decision of the records (all hands known): the
    training rows of ``cnn.train_estimators`` and the CNN rows of ``cnn.report``."""
    cols: dict[str, list] = {k: [] for k in ("planes", "tenpai", "ron", "riichi", "tile", "ronned", "game")}
    it = list(files)
    if progress:
        from tqdm import tqdm

        it = tqdm(it, desc="planes", unit="game")
    for g, path in enumerate(it):
        events = read_record(Path(path))
        if not events:
            raise RecordError("the record is empty", path=str(path))
        rep = FullReplay(path=str(path))
        for idx, e in enumerate(events):
            if e.get("type") == "dahai" and rep.in_kyoku and all(rep.known):
                i = int(e["actor"])
                view = rep.view(i)
                ten, ron, rii = [], [], []
                for k in (1, 2, 3):
                    j = (i + k) % 4
                    ten.append(rep.waits(j).any())
                    ron.append(rep.ronnable(j))
                    rii.append(view.riichi[j])
                cols["planes"].append(encode(view))
                cols["tenpai"].append(ten)
                cols["ron"].append(np.stack(ron))
                cols["riichi"].append(rii)
                cols["tile"].append(mjai_to_kind(e["pai"]))
                cols["ronned"].append(_future_labels(events, idx, i)[0])
                cols["game"].append(g)
            rep.update(e, idx)
    if not cols["planes"]:
        raise RecordError(f"the {len(it)} record(s) hold no discard with all hands known")
    return {"planes": np.stack(cols["planes"]).astype(np.uint8),
            "tenpai": np.array(cols["tenpai"], bool), "ron": np.stack(cols["ron"]).astype(bool),
            "riichi": np.array(cols["riichi"], bool), "tile": np.array(cols["tile"], np.int8),
            "ronned": np.array(cols["ronned"], bool), "game": np.array(cols["game"], np.int32)}


def load_or_build_planes(spec: str | Path | Sequence[str | Path], cache_dir: str | Path | None,
                         progress: bool = True) -> dict[str, np.ndarray]:
    """:func:`build_planes` of the records ``spec`` names, cached in ``cache_dir`` by a key of
    the files (None: no cache)."""
    return cached(spec, cache_dir, "planes", lambda files: build_planes(files, progress), read_npz,
                  lambda path, data: write_npz(path, **data))
