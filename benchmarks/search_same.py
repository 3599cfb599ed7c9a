"""Check that the search solves as an earlier commit does: values and ending probabilities.

Solves 66 real situations of ``benchmarks/data/situations.npz`` (the first 60 with the
default graph, 3 two-shanten roots at ``d = 4`` and 3 one-shanten roots at ``d = 3, m = 2``,
calls and riichi twins on; PSM, WSM and TSM, and PSM at a 13-tile root) with this tree and
with ``--ref`` (checked out with ``git archive`` into a temporary folder), each in its own
process, and prints the largest difference of every state's values at every horizon and of
the root actions' values and ending probabilities. Exit status 1 past ``--tol``.
``--root-only`` solves PSM as the player does (``root_only=True``: the pairs the root reads;
the others are NaN on the reference's side; this tree may solve more of them), for a
``--ref`` that has that option.

    python benchmarks/search_same.py --ref ea05efa
    python benchmarks/search_same.py --ref 731da58 --root-only
"""
from __future__ import annotations

import argparse
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def dump(root: str, out: str, root_only: bool) -> None:
    """Solve the situations with the code under ``root`` and pickle the results to ``out``."""
    sys.path.insert(0, root)
    from abstractions import solve_psm, solve_tsm, solve_wsm
    from benchmarks.search_bench import _params
    from search.hand_graph import build_graph

    data = np.load(Path(root) / "benchmarks" / "data" / "situations.npz")
    hands, unseen, left, sh = data["hands"], data["unseen"], data["tiles_left"], data["shanten"]
    cases = [(i, None, None) for i in range(60)]
    cases += [(int(i), 4, 1) for i in np.flatnonzero(sh == 2)[:3]] + [(int(i), 3, 2) for i in np.flatnonzero(sh == 1)[:3]]
    kw_solve = {"root_only": True} if root_only else {}
    rows = []
    for i, d, m in cases:
        riichi = int(hands[i].sum()) == 14
        p, _ = _params(unseen[i], int(left[i]), riichi, True)
        kw = {} if d is None else dict(d=d, m=m, max_states=60_000)
        g = build_graph(hands[i], unseen[i], horizon=p.T, riichi=riichi, **kw)
        rec = {"i": i, "keys": g.state_keys.copy()}
        for name, solve in (("psm", solve_psm), ("wsm", solve_wsm), ("tsm", solve_tsm)):
            rec[name] = _record(solve(g, p, **(kw_solve if name == "psm" else {})))
        h13 = hands[i].copy()
        h13[int(np.flatnonzero(h13)[0])] -= 1
        if h13.sum() % 3 == 1:
            rec["psm13"] = _record(solve_psm(build_graph(h13, unseen[i], horizon=p.T, riichi=False), p, **kw_solve))
        rows.append(rec)
    Path(out).write_bytes(pickle.dumps(rows))


def _record(rv) -> dict:
    vals = {"VF": np.array(rv.VF), "ED": np.array(rv.ED), "stay": rv.stay, "pass": rv.pass_, "tsumo": rv.tsumo}
    vals.update({("discard", k): v for k, v in rv.discards.items()})
    vals.update({("riichi", k): v for k, v in rv.riichi.items()})
    vals.update({("call",) + k: v for k, v in rv.calls.items()})
    return {"values": vals, "probs": {k: np.array(v) for k, v in rv.probs.items()}}


def _diff(a, b, where, more_ok: bool = False) -> float:
    """Largest difference of ``b`` from ``a`` (the reference); ``more_ok``: ``b`` may have
    solved pairs where ``a`` has NaN (a root-only solve may take more pairs than it reads)."""
    if a is None or b is None:
        if (a is None) != (b is None):
            raise SystemExit(f"{where}: one side has no value")
        return 0.0
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape:
        raise SystemExit(f"{where}: shapes differ")
    if more_ok:
        b = np.where(np.isnan(a), a, b)
    fin = np.isfinite(a)
    if not (fin == np.isfinite(b)).all() or not np.array_equal(a[~fin], b[~fin], equal_nan=True):
        raise SystemExit(f"{where}: non-finite entries differ")
    return float(np.max(np.abs(a[fin] - b[fin]), initial=0.0))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", required=True, help="the commit to compare with")
    ap.add_argument("--tol", type=float, default=1e-12, help="largest difference allowed (default 1e-12)")
    ap.add_argument("--root-only", action="store_true", help="solve only what the root reads, as the player does")
    ap.add_argument("--dump", nargs=2, metavar=("ROOT", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.dump:
        dump(*args.dump, args.root_only)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "ref"
        old.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.ref], capture_output=True, check=False)
        if archive.returncode:
            print(f"error: git archive {args.ref}: {archive.stderr.decode().strip()}", file=sys.stderr)
            return 2
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        for root, out in ((str(old), f"{tmp}/old.pkl"), (str(ROOT), f"{tmp}/new.pkl")):
            subprocess.run([sys.executable, __file__, "--ref", args.ref, "--dump", root, out]
                           + ["--root-only"] * args.root_only, check=True, cwd=root)
        a = pickle.loads(Path(f"{tmp}/old.pkl").read_bytes())
        b = pickle.loads(Path(f"{tmp}/new.pkl").read_bytes())
    worst = {"values": 0.0, "probs": 0.0}
    for ra, rb in zip(a, b, strict=True):
        if not np.array_equal(ra["keys"], rb["keys"]):
            raise SystemExit(f"situation {ra['i']}: the graphs differ")
        for name in ra:
            if name in ("i", "keys"):
                continue
            for kind in ("values", "probs"):
                if set(ra[name][kind]) != set(rb[name][kind]):
                    raise SystemExit(f"situation {ra['i']} {name}: other root actions")
                for k in ra[name][kind]:
                    worst[kind] = max(worst[kind], _diff(ra[name][kind][k], rb[name][kind][k], (ra["i"], name, k),
                                                         more_ok=args.root_only and k in ("VF", "ED")))
    print(f"{len(a)} situations against {args.ref}{' (root_only)' * args.root_only}: largest difference of values "
          f"{worst['values']:.3g}, "
          f"of ending probabilities {worst['probs']:.3g}")
    return 0 if max(worst.values()) <= args.tol else 1


if __name__ == "__main__":
    raise SystemExit(main())
