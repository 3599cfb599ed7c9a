"""Final rank by playing out the hands left: Eq. 1's P(RANK(x, i) | phi) from recorded hands.

``final_rank.FinalRankModel`` reads the final rank off a logistic regression of the
situation at a hand's start. This model plays the rest of the game instead: each hand left
draws one recorded hand's outcome (its score changes, who won from whom, whether the dealer
repeats, the riichi sticks it left), the scores move by it with the table's own honba and
sticks, and the game ends by Tenhou's rules (someone below zero; the last hand passed without
a repeat, or a repeat with the dealer on top, once someone has 30,000; the extension round's
end). The rank distribution is the share of the ``n_sims`` playouts that end in each rank.

Every query plays the same ``n_sims`` sequences of recorded hands (common random numbers),
so two situations are compared on the same futures: a payoff differs between outcomes by
their scores, not by the draws. Outcomes are stored relative to the dealer, so a recorded
dealer's win stays a dealer's win wherever the dealer sits. A playout still running after
``max_hands`` hands ends at its current ranks (``truncated`` counts them).
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import numba as nb
import numpy as np

from game.cli import reports_errors
from game.errors import MahjongError, ModelFileError, RecordError
from regressors.base import load_json, save_json
from regressors.features import current_ranks

KIND = "rank_sim"


class HandOutcomes:
    """Recorded hands' outcomes relative to the dealer (index 0 = the dealer).

    ``base`` (K, 4): score changes without the honba and the earlier hands' sticks;
    ``winner`` / ``payer`` (K,): relative seat of the first winner and of the ron's payer (-1: a
    draw / a tsumo); ``renchan`` (K,): the dealer repeats; ``sticks`` (K,): riichi sticks
    left on the table by a drawn hand.
    """

    def __init__(self, base: np.ndarray, winner: np.ndarray, payer: np.ndarray, renchan: np.ndarray,
                 sticks: np.ndarray):
        self.base = np.ascontiguousarray(base, dtype=np.float64).reshape(-1, 4)
        self.winner = np.ascontiguousarray(winner, dtype=np.int64)
        self.payer = np.ascontiguousarray(payer, dtype=np.int64)
        self.renchan = np.ascontiguousarray(renchan, dtype=np.bool_)
        self.sticks = np.ascontiguousarray(sticks, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.winner)

    @classmethod
    def from_events(cls, games: Iterable[list[dict]]) -> "HandOutcomes":
        rows: list[tuple] = []
        for events in games:
            rows += _game_outcomes(events)
        if not rows:
            raise RecordError("no hand outcome in the records")
        b, w, p, r, s = zip(*rows)
        return cls(np.array(b), np.array(w), np.array(p), np.array(r), np.array(s))

    def to_dict(self) -> dict:
        return {"base": self.base.astype(int).tolist(), "winner": self.winner.tolist(),
                "payer": self.payer.tolist(), "renchan": self.renchan.astype(int).tolist(),
                "sticks": self.sticks.tolist()}

    @classmethod
    def from_dict(cls, d: dict) -> "HandOutcomes":
        return cls(np.array(d["base"]), np.array(d["winner"]), np.array(d["payer"]), np.array(d["renchan"]),
                   np.array(d["sticks"]))


def _game_outcomes(events: list[dict]) -> list[tuple]:
    """One row per complete hand of a record: (base[4], winner, payer, renchan, sticks)."""
    hands: list[dict] = []
    cur = None
    for e in events:
        t = e.get("type")
        if t == "start_kyoku":
            if hands and "next_dealer" not in hands[-1]:
                hands[-1]["next_dealer"] = int(e["oya"])
            cur = {"dealer": int(e["oya"]), "honba": int(e.get("honba", 0)), "kyotaku": int(e.get("kyotaku", 0)),
                   "delta": np.zeros(4), "wins": [], "draw": None, "reach": 0}
        elif cur is None:
            continue
        elif t == "reach_accepted":
            cur["delta"][int(e["actor"])] -= 1000
            cur["reach"] += 1
        elif t == "hora":
            cur["delta"] += np.asarray(e["deltas"], dtype=float)
            a, tgt = int(e["actor"]), int(e["target"])
            cur["wins"].append((a, tgt, bool(e.get("tsumo", False)) or a == tgt))
        elif t == "ryukyoku":
            cur["delta"] += np.asarray(e.get("deltas", [0, 0, 0, 0]), dtype=float)
            cur["draw"] = (e.get("reason", ""), np.asarray(e.get("deltas", [0, 0, 0, 0]), dtype=float))
        elif t == "end_kyoku":
            if cur["wins"] or cur["draw"] is not None:
                hands.append(cur)
            cur = None
    return [_outcome(h) for h in hands]


def start_rows(events: list[dict], hanchan: bool | None = None) -> list[tuple]:
    """Every hand start of a complete record with the game's final ranks (0..3 by seat):
    (scores, round_wind, kyoku, dealer, honba, kyotaku, hanchan, ranks); the rows Eq. 1 is
    judged on. ``hanchan`` None: read from the record (``regressors.datasets.is_hanchan``)."""
    from regressors.datasets import is_hanchan

    starts = [e for e in events if e.get("type") == "start_kyoku"]
    if not starts or not any(e.get("type") == "end_game" for e in events):
        return []
    final = np.asarray(starts[-1]["scores"], dtype=float)
    last = max(i for i, e in enumerate(events) if e.get("type") == "start_kyoku")
    for e in events[last:]:
        if e.get("type") == "reach_accepted":
            final[int(e["actor"])] -= 1000
        elif e.get("type") in ("hora", "ryukyoku"):
            final += np.asarray(e.get("deltas", [0, 0, 0, 0]), dtype=float)
    ranks = [r - 1 for r in current_ranks(final)]
    hanchan = is_hanchan(events) if hanchan is None else hanchan
    return [(list(e["scores"]), "ESWN".index(e["bakaze"]), int(e["kyoku"]) - 1, int(e["oya"]), int(e.get("honba", 0)),
             int(e.get("kyotaku", 0)), hanchan, ranks) for e in starts]


def _outcome(h: dict) -> tuple:
    dl, hb = h["dealer"], h["honba"]
    d = h["delta"].copy()
    winner = payer = -1
    if h["wins"]:  # the honba and the sticks go to the first winner alone (Tenhou's double ron)
        a, tgt, tsumo = h["wins"][0]
        d[a] -= 300 * hb + 1000 * h["kyotaku"]
        if tsumo:
            d[[s for s in range(4) if s != a]] += 100 * hb
        else:
            d[tgt] += 300 * hb
        winner, payer = a, (-1 if tsumo else tgt)
    if "next_dealer" in h:
        renchan = h["next_dealer"] == dl
    elif h["wins"]:
        renchan = any(a == dl for a, _, _ in h["wins"])
    else:  # the game's last hand, drawn: tenpai when paid; an abortive draw repeats
        reason, paid = h["draw"]
        renchan = not reason.startswith("exhaustive") or paid[dl] > 0
    sticks = 0 if h["wins"] else h["reach"]
    rel = [(dl + k) % 4 for k in range(4)]
    return (d[rel], _rel(winner, dl), _rel(payer, dl), bool(renchan), int(sticks))


def _rel(seat: int, dealer: int) -> int:
    return -1 if seat < 0 else (seat - dealer) % 4


@nb.njit(cache=True)
def _pay_hand(sc, o, dl, hb, st, base, winner, payer, renchan, sticks):
    """Move the scores ``sc`` (4,) by outcome ``o`` of a hand dealt by ``dl`` with honba
    ``hb`` and sticks ``st`` on the table (the first winner takes both); returns the next
    hand's honba and sticks and whether the dealer repeats."""
    for k in range(4):
        sc[(dl + k) % 4] += base[o, k]
    rep = renchan[o]
    if winner[o] >= 0:
        w = (dl + winner[o]) % 4
        if payer[o] >= 0:
            sc[w] += 300 * hb
            sc[(dl + payer[o]) % 4] -= 300 * hb
        else:
            for k in range(4):
                if k != w:
                    sc[k] -= 100 * hb
                    sc[w] += 100 * hb
        sc[w] += 1000 * st
        return (hb + 1 if rep else 0), 0, rep
    return hb + 1, st + sticks[o], rep


@nb.njit(cache=True)
def _next_hand(rw, ky, dl, rep):
    """The round, kyoku and dealer of the hand after one the dealer ``dl`` repeats or not."""
    if rep:
        return rw, ky, dl
    if ky == 3:
        return rw + 1, 0, (dl + 1) % 4
    return rw, ky + 1, (dl + 1) % 4


@nb.njit(cache=True)
def _game_ends(sc, dl, rep, last, forced):
    """Whether the game ends after a hand dealt by ``dl`` that left the scores ``sc``: a seat
    below zero; all-last or later (``last``) with someone at 30,000, unless the dealer repeats
    without being on top; the extension's end (``forced``)."""
    low = min(sc[0], min(sc[1], min(sc[2], sc[3])))
    if low < 0 or forced:
        return True
    if not last or max(sc[0], max(sc[1], max(sc[2], sc[3]))) < 30000:
        return False
    if not rep:
        return True
    for k in range(4):
        if sc[k] > sc[dl] or (sc[k] == sc[dl] and k < dl):
            return False
    return True


@nb.njit(cache=True)
def play_hands(sc, rw, ky, dl, hb, st, total, base, winner, payer, renchan, sticks, seq):
    """Play the outcomes ``seq`` (indices into the outcome arrays) one hand after another from
    the start of hand (rw, ky, dealer dl, honba hb, sticks st) on the scores ``sc`` (4,),
    moved in place, until the game ends (Tenhou's rules, module docstring); True when it
    ended within ``len(seq)`` hands."""
    for h in range(len(seq)):
        hb, st, rep = _pay_hand(sc, seq[h], dl, hb, st, base, winner, payer, renchan, sticks)
        idx = 4 * rw + ky
        if _game_ends(sc, dl, rep, idx >= total - 1, idx >= total + 3 and not rep):
            return True
        rw, ky, dl = _next_hand(rw, ky, dl, rep)
    return False


@nb.njit(cache=True)
def _paths(rw, ky, dl, hb, st, total, base, winner, payer, renchan, sticks, seq, D, rep, dealer, last, forced,
           n_hands, first_last, pre_min):
    """The score-free part of every playout of ``seq`` (N, H) from one hand start: the hands
    (their outcomes, honba, sticks and dealers) do not depend on the scores, only the game's
    end does. Fills the cumulative score changes ``D`` (N, H, 4) after each hand, each hand's
    dealer repeat, dealer, whether it is all-last or later (``last``) and whether it ends the
    extension whatever the scores (``forced``); ``n_hands`` (N,) the hands a playout may play,
    ``first_last`` (N,) its first ``last`` hand and ``pre_min`` (N, 4) each seat's lowest
    cumulative change before it (no bust before it when the scores stay above its negative)."""
    c = np.empty(4)
    H = seq.shape[1]
    for s in range(seq.shape[0]):
        c[:] = 0.0
        r_w, k_y, d_l, h_b, s_t = rw, ky, dl, hb, st
        n, fl = H, H
        pre_min[s, :] = np.inf
        for h in range(H):
            h_b, s_t, rp = _pay_hand(c, seq[s, h], d_l, h_b, s_t, base, winner, payer, renchan, sticks)
            idx = 4 * r_w + k_y
            D[s, h, :] = c
            rep[s, h], dealer[s, h] = rp, d_l
            last[s, h] = idx >= total - 1
            forced[s, h] = idx >= total + 3 and not rp
            if last[s, h] and fl == H:
                fl = h
            if fl == H:
                for k in range(4):
                    pre_min[s, k] = min(pre_min[s, k], c[k])
            if forced[s, h]:
                n = h + 1
                break
            r_w, k_y, d_l = _next_hand(r_w, k_y, d_l, rp)
        n_hands[s], first_last[s] = n, min(fl, n)


@nb.njit(cache=True)
def _play_out(scores0, rw, ky, dl, hb, st, total, base, winner, payer, renchan, sticks, seq, out):
    """Add the final-rank counts (m, 4 seats, 4 ranks) of every playout of ``seq`` (N, H)
    from each row of ``scores0``; returns the number of playouts cut at H hands. The same
    games as :func:`play_hands` one by one: the hands are laid out once (:func:`_paths`) and
    each row checks only where the game may end, from the first all-last hand on unless a
    seat could go below zero before it."""
    N, H = seq.shape
    D = np.empty((N, H, 4))
    rep = np.empty((N, H), np.bool_)
    dealer = np.empty((N, H), np.int64)
    last = np.empty((N, H), np.bool_)
    forced = np.empty((N, H), np.bool_)
    n_hands = np.empty(N, np.int64)
    first_last = np.empty(N, np.int64)
    pre_min = np.empty((N, 4))
    _paths(rw, ky, dl, hb, st, total, base, winner, payer, renchan, sticks, seq, D, rep, dealer, last, forced,
           n_hands, first_last, pre_min)
    cut = 0
    sc = np.empty(4)
    for r in range(scores0.shape[0]):
        for s in range(N):
            start = first_last[s]
            for k in range(4):
                if scores0[r, k] + pre_min[s, k] < 0:
                    start = 0
            end = n_hands[s] - 1
            ended = False
            for h in range(start, n_hands[s]):
                for k in range(4):
                    sc[k] = scores0[r, k] + D[s, h, k]
                if _game_ends(sc, dealer[s, h], rep[s, h], last[s, h], forced[s, h]):
                    end, ended = h, True
                    break
            if not ended:
                cut += 1
            for k in range(4):
                sc[k] = scores0[r, k] + D[s, end, k]
            for k in range(4):
                rank = 0
                for q in range(4):
                    if sc[q] > sc[k] or (sc[q] == sc[k] and q < k):
                        rank += 1
                out[r, k, rank] += 1.0
    return cut


class SimRankModel:
    """Eq. 1 by playouts of recorded hands (module docstring); the API of ``FinalRankModel``."""

    def __init__(self, outcomes: HandOutcomes, n_sims: int = 2000, max_hands: int = 20, seed: int = 0):
        if len(outcomes) == 0:
            raise ModelFileError("a rank_sim model needs at least one hand outcome")
        self.outcomes = outcomes
        self.n_sims, self.max_hands, self.seed = int(n_sims), int(max_hands), int(seed)
        rng = np.random.default_rng(self.seed)
        self.seq = rng.integers(0, len(outcomes), size=(self.n_sims, self.max_hands)).astype(np.int64)
        self.truncated = 0
        self.playouts = 0

    def rank_probs_batch(self, scores: np.ndarray, round_wind: int, kyoku: int, dealer: int, honba: int,
                         kyotaku: int, hanchan: bool = False) -> np.ndarray:
        """(m, 4 seats, 4 ranks): the final-rank distribution of every seat from each row of
        ``scores`` (m, 4) at the start of the hand (round_wind, kyoku, dealer, honba, kyotaku)."""
        s = np.ascontiguousarray(np.atleast_2d(scores), dtype=np.float64)
        out = np.zeros((s.shape[0], 4, 4))
        o = self.outcomes
        self.truncated += _play_out(s, int(round_wind), int(kyoku), int(dealer), int(honba), int(kyotaku),
                                    8 if hanchan else 4, o.base, o.winner, o.payer, o.renchan, o.sticks,
                                    self.seq, out)
        self.playouts += s.shape[0] * self.n_sims
        return out / self.n_sims

    def rank_probs(self, scores: Sequence[int], round_wind: int, kyoku: int, dealer: int,
                   honba: int = 0, kyotaku: int = 0, *, hanchan: bool = False,
                   game_over: bool = False) -> np.ndarray:
        """(4 seats, 4 ranks), as ``FinalRankModel.rank_probs``."""
        if game_over:
            out = np.zeros((4, 4))
            out[np.arange(4), np.asarray(current_ranks(list(scores))) - 1] = 1.0
            return out
        return self.rank_probs_batch(np.asarray(scores)[None, :], round_wind, kyoku, dealer, honba, kyotaku,
                                     hanchan)[0]

    def expected_rank(self, *args, **kwargs) -> np.ndarray:
        return self.rank_probs(*args, **kwargs) @ np.arange(1, 5)

    def save(self, path: str | Path) -> Path:
        return save_json({"outcomes": self.outcomes.to_dict(), "n_sims": self.n_sims,
                          "max_hands": self.max_hands, "seed": self.seed}, path, KIND)

    @classmethod
    def load(cls, path: str | Path) -> "SimRankModel":
        d = load_json(path, KIND)
        try:
            return cls(HandOutcomes.from_dict(d["outcomes"]), d["n_sims"], d["max_hands"], d["seed"])
        except (KeyError, ValueError, TypeError) as exc:
            raise ModelFileError(f"{path}: not a rank_sim model ({exc})") from exc


def log_loss(model, rows: Sequence[tuple], floor: float = 1e-3) -> np.ndarray:
    """Per row of :func:`start_rows`, the mean over the four seats of -log P(the seat's final
    rank); probabilities below ``floor`` count as ``floor`` (a playout model gives 0 to ranks
    none of its playouts reached)."""
    out = np.empty(len(rows))
    for i, (sc, rw, ky, dl, hb, ks, hanchan, ranks) in enumerate(rows):
        P = model.rank_probs(sc, rw, ky, dl, hb, ks, hanchan=hanchan)
        out[i] = -np.mean(np.log(np.maximum(P[np.arange(4), ranks], floor)))
    return out


def _records(globs: Sequence[str]) -> list[list[dict]]:
    from game.records import iter_record_files, read_events

    return [read_events(p) for p in iter_record_files(list(globs))]


def _report_heldout(model: SimRankModel, games: list[list[dict]], hanchan: bool | None) -> None:
    """Log loss of the playouts and of the shipped logistic model on every hand start of
    ``games``, by hands left; the difference's SE counts a game's hand starts as one cluster."""
    from regressors.estimators import load_default
    from regressors.features import hands_left

    rows, game = [], []
    for g, ev in enumerate(games):
        r = start_rows(ev, hanchan)
        rows += r
        game += [g] * len(r)
    if not rows:
        raise RecordError("no complete game among the held-out records")
    sim, lr = log_loss(model, rows), log_loss(load_default("final_rank"), rows)
    d, game = sim - lr, np.asarray(game)
    resid = np.bincount(game, weights=d - d.mean())  # per game: its rows' deviations summed
    G = len(resid)
    se = np.sqrt(G / max(G - 1, 1) * np.sum(resid ** 2)) / len(d)
    print(f"held out, {len(rows)} hand starts of {len(games)} games: log loss playouts {sim.mean():.4f}, "
          f"logistic {lr.mean():.4f}, difference {d.mean():+.4f} +- {se:.4f}")
    left = np.array([min(hands_left(r[1], r[2], r[6]), 4) for r in rows])
    for k in sorted(set(left), reverse=True):
        sel = left == k
        print(f"  {k}{'+' if k == 4 else ''} hands left ({sel.sum()}): playouts {sim[sel].mean():.4f}, "
              f"logistic {lr[sel].mean():.4f}")
    print(f"playouts cut at {model.max_hands} hands: {model.truncated} of {model.playouts}")


@reports_errors
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m regressors.rank_sim", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", required=True, nargs="+", help="glob(s) or paths of the records whose hands are played out")
    ap.add_argument("--out", required=True, help="the model file to write (JSON)")
    ap.add_argument("--sims", type=int, default=2000, help="playouts a query (default 2000)")
    ap.add_argument("--max-hands", type=int, default=20,
                    help="hands a playout plays at most (default 20: a hanchan and its extension)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the playouts' draws (default 0)")
    ap.add_argument("--heldout", nargs="+", default=None,
                    help="records to judge the model on: the mean log loss of every hand start's final ranks, "
                         "beside the shipped logistic model's")
    ap.add_argument("--hanchan", action="store_true",
                    help="the held-out games are hanchan (default: read from each record; an mjlog that "
                         "ends in the east round reads as east-only)")
    args = ap.parse_args(argv)
    if args.sims < 1 or args.max_hands < 1:
        raise MahjongError(f"--sims and --max-hands must be >= 1, got {args.sims}, {args.max_hands}")
    model = SimRankModel(HandOutcomes.from_events(_records(args.records)), args.sims, args.max_hands, args.seed)
    out = Path(args.out)
    if out.is_dir():
        raise MahjongError(f"--out {out} is a directory, not a file")
    model.save(out)
    o = model.outcomes
    print(f"{len(o)} hands -> {out}: dealer repeats {o.renchan.mean():.3f}, draws {(o.winner < 0).mean():.3f}")
    if args.heldout:
        _report_heldout(model, _records(args.heldout), True if args.hanchan else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
