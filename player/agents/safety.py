"""Deal-in danger of each tile kind against threatening opponents: the folding heuristics.

The classic defensive reads, in order of trust:

* **genbutsu**: a kind the threat discarded itself (it cannot ron it: furiten), or one that
  anybody discarded after its riichi and it let pass;
* **suji**: a number tile whose ryanmen waits are both ruled out by its genbutsu
  (e.g. 4 safe rules out 1-4 and 4-7, so 1 and 7 are suji);
* **visible counts**: an honor with three copies seen can only be a tanki/shanpon wait;
  a *kabe* (all four copies of the neighbour seen) rules out the ryanmen through it.

The danger values are relative weights for choosing among discards, not probabilities.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

N_KINDS = 34


def danger_vector(safe: np.ndarray, unseen: np.ndarray,
                  kinds: Iterable[int] | None = None) -> np.ndarray:
    """Danger of each kind (only ``kinds``, when given; the rest stay 0) against one threat.

    ``safe`` is a bool[34] of its genbutsu; ``unseen`` the uint8[34] copies this seat
    cannot see (a kind with none unseen can only be a wait the threat holds itself).
    """
    danger = np.zeros(N_KINDS)
    for k in (range(N_KINDS) if kinds is None else set(kinds)):
        if safe[k]:
            continue
        if k >= 27:
            # Honors: only tanki or shanpon waits; the fewer copies left, the safer.
            danger[k] = (0.0, 1.0, 3.0, 4.0, 4.0)[int(unseen[k])]
            continue
        danger[k] = _number_danger(k, safe, unseen)
    return danger


def _number_danger(k: int, safe: np.ndarray, unseen: np.ndarray) -> float:
    n = k % 9  # 0..8
    base = k - n
    # Ryanmen waits that include this tile: (n-3 side, n+3 side) suji partners.
    open_sides = 0
    sides = 0
    for partner, a, b in ((n - 3, n - 2, n - 1), (n + 3, n + 1, n + 2)):
        if not 0 <= partner <= 8:
            continue
        sides += 1
        lo, hi = (a, b)
        # The shape waiting on n and partner is the two tiles between them; a kabe
        # (no copy of either left) or a genbutsu partner kills it.
        if safe[base + partner]:
            continue
        if unseen[base + lo] == 0 or unseen[base + hi] == 0:
            continue
        open_sides += 1
    if n in (0, 8):
        shape = 4.0
    elif n in (1, 7):
        shape = 6.0
    else:
        shape = 8.0
    if open_sides == 0:
        # Suji or kabe: only tanki, shanpon, kanchan/penchan remain.
        value = 2.0 if n in (0, 8) else 3.0
    else:
        value = shape * (open_sides / sides if sides else 1.0)
        value = max(value, 3.0)
    if unseen[k] == 0:
        return 0.5
    return value * (0.6 if unseen[k] == 1 else 1.0)
