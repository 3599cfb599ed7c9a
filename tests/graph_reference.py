"""Plain references for the reduced hand graph's tests (H1 from its definition, Sec. VI-D) and
the brute-force MDPs' draw chances."""
from __future__ import annotations

import itertools

import numpy as np
import riichienv


def riichienv_shanten(counts: np.ndarray) -> int:
    return riichienv.calculate_shanten([4 * k + j for k in range(34) for j in range(int(counts[k]))])


def reference_h1(h0: np.ndarray, unseen: np.ndarray, d: int) -> set[tuple[int, ...]]:
    """H1 = {h : |h \\ h0| + shanten(h) <= d} straight from its definition, shanten from riichienv.

    Every hand within ``m <= d`` exchanges is ``h0`` less ``m`` tiles (``m + 1`` for a 14-tile
    root, whose ``h0 - t`` are the distance-0 seeds, kept whatever their shanten) plus ``m``
    tiles of any kind, with at most ``h0 + unseen`` copies of a kind.
    """
    base = [int(x) for x in h0]
    cap = [int(x) for x in h0.astype(int) + unseen]
    extra = 1 if sum(base) % 3 == 2 else 0
    held = [k for k in range(34) for _ in range(base[k])]
    out = set()
    for m in range(d + 1):
        for rem in set(itertools.combinations(held, m + extra)):
            c = list(base)
            for k in rem:
                c[k] -= 1
            for add in itertools.combinations_with_replacement(range(34), m):
                h = list(c)
                for k in add:
                    h[k] += 1
                if any(h[k] > cap[k] for k in add):
                    continue
                key = tuple(h)
                if key in out:
                    continue
                dist = sum(max(0, h[k] - base[k]) for k in range(34))
                if dist == 0 or (dist <= d and dist + riichienv_shanten(np.array(h)) <= d):
                    out.add(key)
    return out


def draw_weights(left, useful, share):
    """Each kind's draw chance: its unseen share, the useful kinds at ``share`` of it, the
    others more by as much (unscaled when every draw is useful, or none); a share above 1
    gives the useful kinds at most every draw."""
    total = sum(x for x in left if x > 0)
    w_use = sum(left[u] for u in range(34) if useful[u]) / total
    if w_use >= 1 - 1e-12 or w_use == 0:
        return [max(x, 0) / total for x in left]
    share = min(share, 1 / w_use)
    rest = (1 - share * w_use) / (1 - w_use)
    return [(share if useful[u] else rest) * max(left[u], 0) / total for u in range(34)]


def useful_draws(h, left, wins, p, after, n) -> tuple[list[bool], float]:
    """The kinds whose draw is useful at hand ``h`` after ``n`` discards and the share they
    come at (the checked ``p``'s ``draw_share[n]`` at tenpai: the kinds that complete it;
    ``progress_share[shanten - 1, n]`` otherwise: the kinds after which some discard, into a
    hand ``after(c2, t)`` says is allowed, lowers the shanten; riichienv's shanten of the
    concealed tiles)."""
    sh = riichienv_shanten(np.array(h))
    if sh <= 0:
        return [left[u] > 0 and wins[u] for u in range(34)], p.draw_share[n]
    useful = []
    for u in range(34):
        c2 = list(h)
        c2[u] += 1
        useful.append(left[u] > 0 and any(
            c2[t] > 0 and t != u and after(c2, t) and riichienv_shanten(np.array(c2) - np.eye(34, dtype=int)[t]) < sh
            for t in range(34)))
    return useful, p.progress_share[min(sh, 3) - 1, n]
