"""Planes of the CNN estimators: one seat's view of the table as uint8[45, 34].

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

import numpy as np

from game.tiles import dora_from_indicator
from regressors.features import n_takes, safe_kinds

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
