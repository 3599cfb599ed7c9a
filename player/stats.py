"""Match statistics: rank tables, the rank test, Tenhou rank points, per-hand rates, plots.

The table follows Table I of Kurita & Hoki (Sec. VII; ``specs/kurita_hoki.md`` section 8):
the rates of 1st..4th place and the mean rank with its standard error, for the player and
for its opponents pooled (the paper pools its two manue copies the same way).

**Duplicate blocks.** ``player.evaluate`` plays every wall seed four times, with the player in
seat 0, 1, 2 and 3 (a *block*). Games of one block share their walls and are therefore
correlated; blocks are independent. Every standard error here is computed over block means
(a cluster-robust standard error), so it stays honest about that correlation, and equals the
ordinary ``sd / sqrt(n)`` when every block holds one game.

**The rank test.** Per block, ``d = mean opponent rank - player rank`` (averaged over the
block's games; positive means the player did better). Under the null hypothesis that the
player is as strong as its opponents, the seat rotation makes ``E[d] = 0``. We run a
one-sample t-test of the block values against 0: it is the paper's paired test (Sec. VII
compares the per-game rank difference of the AI and Bakuuchi, mean 0.0574, sd 1.822) with
the wall seed as the pairing unit. A Welch test of the player's ranks against the pooled
opponents' ranks would be wrong here: the four ranks of a game sum to 10, so the two samples
are dependent, and the same walls tie the games of a block together.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as sps

from game.cli import pyplot, save_figure
from game.errors import MahjongError

# Tenhou phoenix-room rank points (dan points) at 7-dan, where the 4th place loses
# 15 * (dan + 2) in a south game: +90/+45/0/-135. The east-only (tonpu) room pays two
# thirds of that: +60/+30/0/-90.
RANK_POINTS_HANCHAN: tuple[int, int, int, int] = (90, 45, 0, -135)
RANK_POINTS_TONPU: tuple[int, int, int, int] = (60, 30, 0, -90)
RANK_POINTS_DAN = 7

COUNT_KEYS = ("hands", "wins", "deal_ins", "riichi", "calls")
#: Point sums of :func:`count_hand_events` (the ``deltas`` of the ``hora`` events): what a seat
#: gained by its wins and paid on its deal-ins, riichi sticks and honba included.
POINT_KEYS = ("win_points", "deal_in_points")
#: How a win came (``count_hand_events(routes=True)``): after the winner's riichi, with an open
#: meld (chi, pon, open or added kan), or closed without riichi (dama; closed kans keep a hand closed).
ROUTES = ("riichi", "open", "dama")
ROUTE_WINS = tuple(f"wins_{r}" for r in ROUTES)
ROUTE_POINTS = tuple(f"win_points_{r}" for r in ROUTES)


def rank_points_table(hanchan: bool) -> tuple[int, int, int, int]:
    """The rank-point table used for a south (``hanchan``) or an east-only game."""
    return RANK_POINTS_HANCHAN if hanchan else RANK_POINTS_TONPU


def stable_dan(rates: Sequence[float], hanchan: bool) -> float:
    """Tenhou phoenix-room "stable dan": the dan at which the expected rank points are 0.

    With the 4th-place loss ``step * (dan + 2)`` (step 15 south, 10 east-only) this is
    ``(r1 * pt1 + r2 * pt2) / (r4 * step) - 2``; ``inf`` when the player never came 4th.
    """
    pts = rank_points_table(hanchan)
    step = -pts[3] / (RANK_POINTS_DAN + 2)
    if rates[3] == 0:
        return math.inf
    return (rates[0] * pts[0] + rates[1] * pts[1] + rates[2] * pts[2]) / (rates[3] * step) - 2


# ----------------------------------------------------------------------------- basics


def rank_rates(ranks: Iterable[int]) -> np.ndarray:
    """Fractions of 1st, 2nd, 3rd and 4th places (float[4])."""
    r = np.asarray(list(ranks), dtype=np.int64)
    if r.size == 0:
        return np.zeros(4)
    if r.min() < 1 or r.max() > 4:
        raise MahjongError(f"ranks must lie in 1..4, got {sorted(set(r.tolist()))}")
    return np.bincount(r - 1, minlength=4)[:4] / r.size


def block_means(values: Sequence[float], blocks: Sequence[int]) -> np.ndarray:
    """Mean of ``values`` within each block, in order of first appearance of the block."""
    v = np.asarray(values, dtype=np.float64)
    _, first, inv = np.unique(np.asarray(blocks), return_index=True, return_inverse=True)
    sums = np.bincount(inv, weights=v)
    counts = np.bincount(inv)
    order = np.argsort(first)
    return (sums / counts)[order]


def mean_se(values: Sequence[float], blocks: Sequence[int] | None = None) -> tuple[float, float]:
    """Mean of ``values`` and its standard error.

    Without blocks: ``sd / sqrt(n)`` (sd with n-1). With blocks (values in the same block are
    correlated): the cluster-robust SE, ``sqrt(sum_g e_g^2) / n * sqrt(G / (G - 1))`` where
    ``e_g`` sums the residuals of block g; it reduces to ``sd / sqrt(n)`` for one value a block.
    """
    v = np.asarray(values, dtype=np.float64)
    n = v.size
    if n == 0:
        return math.nan, math.nan
    mean = float(v.mean())
    if blocks is None:
        se = float(v.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        return mean, se
    _, inv = np.unique(np.asarray(blocks), return_inverse=True)
    g = int(inv.max()) + 1
    if g < 2:
        return mean, math.nan
    resid = np.bincount(inv, weights=v - mean)
    se = math.sqrt(float(np.sum(resid**2))) / n * math.sqrt(g / (g - 1))
    return mean, se


@dataclass(frozen=True)
class RankTest:
    """One-sample t-test of the per-block rank advantage ``d`` against 0 (see module doc)."""

    mean_diff: float  # mean of d: opponents' mean rank minus the player's rank
    sd_diff: float
    se_diff: float
    n_blocks: int
    t: float
    df: int
    p_two_sided: float
    p_one_sided: float  # H1: the player ranks better than its opponents (d > 0)


def t_test_zero(diffs: Sequence[float]) -> RankTest:
    """Student's one-sample t-test of ``diffs`` against 0, computed from its definition.

    ``t = mean / (sd / sqrt(n))`` with ``n - 1`` degrees of freedom; the p-values come from
    the t distribution (``scipy.stats.t``). Tests check it against ``scipy.stats.ttest_1samp``.
    """
    d = np.asarray(diffs, dtype=np.float64)
    n = d.size
    if n < 2:
        return RankTest(float(d.mean()) if n else math.nan, math.nan, math.nan, n,
                        math.nan, max(n - 1, 0), math.nan, math.nan)
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    se = sd / math.sqrt(n)
    df = n - 1
    if se == 0:
        t = math.copysign(math.inf, mean) if mean else math.nan
    else:
        t = mean / se
    if math.isnan(t):
        p2 = p1 = math.nan
    else:
        p2 = float(2 * sps.t.sf(abs(t), df))
        p1 = float(sps.t.sf(t, df))
    return RankTest(mean, sd, se, n, t, df, p2, p1)


def rank_test(player_ranks: Sequence[int], opponent_ranks: Sequence[Sequence[int]],
              blocks: Sequence[int]) -> RankTest:
    """The rank test of the module doc: per-block ``mean(opponent ranks) - player rank``."""
    pr = np.asarray(player_ranks, dtype=np.float64)
    orank = np.asarray(opponent_ranks, dtype=np.float64).reshape(len(pr), -1)
    per_game = orank.mean(axis=1) - pr
    return t_test_zero(block_means(per_game, blocks))


# ----------------------------------------------------------------------------- events


def count_hand_events(events: Sequence[Mapping], *, routes: bool = False) -> dict[str, list[int]]:
    """Per-seat counts over the hands of one mjai log.

    Every count is a number of *hands*: ``hands`` played (the same for all seats), hands the
    seat ``wins`` (a double ron counts for both winners), hands it ``deal_ins`` (its discard or
    kakan was ronned), hands it declared ``riichi`` in (accepted), and hands in which it made an
    open ``call`` (chi, pon or daiminkan; a kakan extends a pon already counted, an ankan keeps
    the hand closed) -- the usual Tenhou definition of the call rate. Where every ``hora``
    carries its ``deltas`` (the engine's logs and Tenhou's records do), also the points of
    :data:`POINT_KEYS`: ``win_points`` the sum of the seat's gains by its wins, ``deal_in_points``
    the sum of what it paid on its deal-ins (positive). With ``routes`` also its wins by
    :data:`ROUTES` (``wins_riichi`` ...) and, with the deltas, their points (``win_points_riichi``
    ...): the hand value a route brings, beside how often it is taken.
    """
    out = {k: [0, 0, 0, 0] for k in COUNT_KEYS + (ROUTE_WINS if routes else ())}
    points = {k: [0, 0, 0, 0] for k in POINT_KEYS + (ROUTE_POINTS if routes else ())}
    deltas_known = True
    won: set[int] = set()
    dealt: set[int] = set()
    reached: set[int] = set()
    called: set[int] = set()

    def close_hand() -> None:
        for key, seats in (("wins", won), ("deal_ins", dealt), ("riichi", reached), ("calls", called)):
            for s in seats:
                out[key][s] += 1
            seats.clear()

    for ev in events:
        typ = ev.get("type")
        if typ == "start_kyoku":
            close_hand()
            for s in range(4):
                out["hands"][s] += 1
        elif typ == "hora":
            actor, target = int(ev["actor"]), int(ev.get("target", ev["actor"]))
            won.add(actor)
            if target != actor:
                dealt.add(target)
            route = "riichi" if actor in reached else "open" if actor in called else "dama"
            if routes:
                out[f"wins_{route}"][actor] += 1
            deltas = ev.get("deltas")
            if deltas is None:
                deltas_known = False
            else:
                points["win_points"][actor] += int(deltas[actor])
                if routes:
                    points[f"win_points_{route}"][actor] += int(deltas[actor])
                if target != actor:
                    points["deal_in_points"][target] -= int(deltas[target])
        elif typ == "reach_accepted":
            reached.add(int(ev["actor"]))
        elif typ in ("chi", "pon", "daiminkan"):
            called.add(int(ev["actor"]))
    close_hand()
    return {**out, **points} if deltas_known else out


# ----------------------------------------------------------------------------- summary


def _check_result(res: Mapping, where: str) -> None:
    for key in ("game", "block", "player_seat", "ranks", "scores", "names", "counts"):
        if key not in res:
            raise MahjongError(f"{where}: result lacks {key!r}")
    if len(res["ranks"]) != 4 or sorted(res["ranks"]) != [1, 2, 3, 4]:
        raise MahjongError(f"{where}: ranks {res['ranks']!r} are not a permutation of 1..4")
    if not 0 <= int(res["player_seat"]) < 4:
        raise MahjongError(f"{where}: player_seat {res['player_seat']!r} outside 0..3")


def _side_summary(ranks: np.ndarray, blocks: np.ndarray, pts: np.ndarray,
                  counts: Mapping[str, np.ndarray], hanchan: bool) -> dict:
    """Numbers for one side (the player, or the opponents pooled): ranks, points, hand rates."""
    rates = rank_rates(ranks.tolist())
    n = ranks.size
    mean, se = mean_se(ranks, blocks)
    pmean, pse = mean_se(pts, blocks)
    hands = int(counts["hands"].sum())
    def per_hand(key: str) -> float:
        return _ratio(float(counts[key].sum()), hands)

    def per(key: str, of: str) -> float | None:
        """Points of ``key`` per hand counted in ``of``; None where the records hold no points."""
        return _ratio(float(counts[key].sum()), int(counts[of].sum())) if key in counts else None

    return {
        "n": int(n),
        "rank_rates": [float(x) for x in rates],
        "rank_rate_se": [float(math.sqrt(p * (1 - p) / n)) if n else math.nan for p in rates],
        "mean_rank": mean,
        "mean_rank_se": se,
        "mean_rank_ci95": [mean - 1.96 * se, mean + 1.96 * se],
        "rank_points_mean": pmean,
        "rank_points_se": pse,
        "stable_dan": stable_dan(rates, hanchan),
        "hands": hands,
        "counts": {k: int(v.sum()) for k, v in counts.items()},
        "win_rate": per_hand("wins"),
        "deal_in_rate": per_hand("deal_ins"),
        "riichi_rate": per_hand("riichi"),
        "call_rate": per_hand("calls"),
        "points_per_win": per("win_points", "wins"),
        "points_per_deal_in": per("deal_in_points", "deal_ins"),
    }


def _method_shares(res: Sequence[Mapping], *, player: bool) -> dict | None:
    """How one side's decisions were made, summed over games (``methods`` of the records):
    counts and shares of ``decisions``; None when its agent keeps no counts."""
    total: dict[str, int] = {}
    for r in res:
        seat = int(r["player_seat"])
        for s, m in enumerate(r.get("methods") or [None] * 4):
            if m is None or (s == seat) != player:
                continue
            for k, v in m.items():
                total[k] = total.get(k, 0) + int(v)
    if not total:
        return None
    n = total.get("decisions", 0)
    return {"counts": total, "shares": {k: v / n for k, v in total.items() if k != "decisions" and n}}


def summarize(results: Sequence[Mapping], *, hanchan: bool = False) -> dict:
    """Everything the evaluation reports, from per-game result records.

    A record (one line of ``results.jsonl``) has ``game`` (index), ``block`` (wall-seed index),
    ``player_seat``, ``names``, ``scores``, ``ranks`` (1..4 by seat) and ``counts`` (per-seat
    lists, see :func:`count_hand_events`). Records are sorted by game index first, so the
    summary does not depend on the order in which games finished.
    """
    if not results:
        raise MahjongError("no finished games to summarize")
    res = sorted(results, key=lambda r: int(r["game"]))
    for r in res:
        _check_result(r, f"game {r.get('game')}")
    n = len(res)
    seats = np.array([int(r["player_seat"]) for r in res])
    ranks = np.array([r["ranks"] for r in res], dtype=np.int64)  # (n, 4) by seat
    blocks = np.array([int(r["block"]) for r in res])
    pts_table = np.array(rank_points_table(hanchan), dtype=np.float64)
    opp_mask = np.ones((n, 4), dtype=bool)
    opp_mask[np.arange(n), seats] = False

    player_ranks = ranks[np.arange(n), seats]
    opp_ranks = ranks[opp_mask].reshape(n, 3)
    # the points come with the records written since session 42; a run that began before has none
    keys = COUNT_KEYS + (POINT_KEYS if all(k in r["counts"] for r in res for k in POINT_KEYS) else ())
    counts = {k: np.array([r["counts"][k] for r in res], dtype=np.int64) for k in keys}
    player_counts = {k: v[np.arange(n), seats] for k, v in counts.items()}
    opp_counts = {k: v[opp_mask] for k, v in counts.items()}

    player = _side_summary(player_ranks, blocks, pts_table[player_ranks - 1], player_counts, hanchan)
    opponents = _side_summary(opp_ranks.ravel(), np.repeat(blocks, 3),
                              pts_table[opp_ranks.ravel() - 1], opp_counts, hanchan)
    test = rank_test(player_ranks, opp_ranks, blocks)
    first = res[0]
    p_seat = int(first["player_seat"])
    opp_name = first["names"][(p_seat + 1) % 4]
    player_scores = np.array([r["scores"][int(r["player_seat"])] for r in res], dtype=np.float64)
    methods = {"player": _method_shares(res, player=True), "opponent": _method_shares(res, player=False)}
    smean, sse = mean_se(player_scores, blocks)
    return {
        "player": first["names"][p_seat],
        "opponent": opp_name,
        "games": n,
        "blocks": int(np.unique(blocks).size),
        "hanchan": bool(hanchan),
        "rank_points_table": list(rank_points_table(hanchan)),
        "rank_points_note": ("Tenhou phoenix room at 7-dan, "
                             + ("south game: +90/+45/0/-135" if hanchan
                                else "east-only: +60/+30/0/-90")),
        "player_stats": player,
        "opponent_stats": opponents,
        "decision_methods": methods,
        "player_final_score_mean": smean,
        "player_final_score_se": sse,
        "rank_test": {
            "name": "one-sample t-test over wall seeds of (opponents' mean rank - player rank)",
            **asdict(test),
        },
    }


def format_table(summary: Mapping) -> str:
    """A plain-text table in the shape of Kurita & Hoki's Table I, then the test and rates."""
    p, o = summary["player_stats"], summary["opponent_stats"]
    t = summary["rank_test"]
    lines = [
        f"{summary['games']} games ({summary['blocks']} wall seeds x seat rotation), "
        + ("south" if summary["hanchan"] else "east-only"),
        "",
        f"{'player':<24}{'1st':>7}{'2nd':>7}{'3rd':>7}{'4th':>7}   mean rank (+- SE)",
    ]
    for label, side in ((summary["player"], p), (f"{summary['opponent']} (3 pooled)", o)):
        r = side["rank_rates"]
        lines.append(f"{label:<24}{r[0]:>7.3f}{r[1]:>7.3f}{r[2]:>7.3f}{r[3]:>7.3f}   "
                     f"{side['mean_rank']:.3f} +- {side['mean_rank_se']:.3f}")
    lines += [
        "",
        f"rank advantage (opponents' mean rank - player rank): {t['mean_diff']:+.4f} "
        f"+- {t['se_diff']:.4f} (sd {t['sd_diff']:.3f}, {t['n_blocks']} wall seeds)",
        f"  t = {t['t']:.3f}, df = {t['df']}, p two-sided = {t['p_two_sided']:.4g}, "
        f"p one-sided (player better) = {t['p_one_sided']:.4g}",
        f"rank points ({summary['rank_points_note']}): player {p['rank_points_mean']:+.2f} "
        f"+- {p['rank_points_se']:.2f}/game, opponents {o['rank_points_mean']:+.2f}; "
        f"stable dan {p['stable_dan']:.2f}",
        "",
        f"{'per hand':<24}{'win':>8}{'deal-in':>9}{'riichi':>8}{'call':>8}"
        + (f"{'points/win':>12}{'points/deal-in':>16}" if p.get("points_per_win") is not None else ""),
    ]
    for label, side in ((summary["player"], p), (summary["opponent"], o)):
        lines.append(f"{label:<24}{side['win_rate']:>8.3f}{side['deal_in_rate']:>9.3f}"
                     f"{side['riichi_rate']:>8.3f}{side['call_rate']:>8.3f}"
                     + (points_column(side['points_per_win'], 12) + points_column(side['points_per_deal_in'], 16)
                        if side.get("points_per_win") is not None else ""))
    for label, key in ((summary["player"], "player"), (summary["opponent"], "opponent")):
        m = (summary.get("decision_methods") or {}).get(key)
        if m:
            shares = ", ".join(f"{k} {100 * v:.1f} %" for k, v in sorted(m["shares"].items()))
            lines.append(f"decisions of {label}: {m['counts'].get('decisions', 0)} ({shares})")
    return "\n".join(lines)


def points_column(x: float | None, width: int) -> str:
    """A points column of the tables: ``-`` where there was nothing to average (NaN or None)."""
    return f"{x:>{width}.0f}" if x is not None and math.isfinite(x) else f"{'-':>{width}}"


def plot_ranks(summary: Mapping, path) -> None:
    """Bar plot of the rank distributions of the player and the pooled opponents (PNG)."""
    plt = pyplot()

    p, o = summary["player_stats"], summary["opponent_stats"]
    x = np.arange(4)
    fig, ax = plt.subplots(figsize=(6, 4))
    w = 0.38
    for shift, side, label in ((-w / 2, p, f"{summary['player']} ({p['mean_rank']:.2f})"),
                               (w / 2, o, f"{summary['opponent']} x3 ({o['mean_rank']:.2f})")):
        rates = np.asarray(side["rank_rates"])
        half = 1.96 * np.asarray(side["rank_rate_se"])
        # The 95% interval, clipped to [0, 1].
        err = [np.minimum(half, rates), np.minimum(half, 1 - rates)]
        ax.bar(x + shift, rates, w, yerr=err, capsize=3, label=label)
    ax.axhline(0.25, color="grey", lw=0.8, ls="--")
    ax.set_xticks(x, ["1st", "2nd", "3rd", "4th"])
    ax.set_ylabel("fraction of games")
    ax.set_title(f"Rank distribution, {summary['games']} games (95% CI)")
    ax.legend()
    save_figure(fig, path, dpi=100)


def count_kans(events: Sequence[Mapping]) -> list[int]:
    """Per seat, the hands of one mjai log in which it made a kan (closed, added or open)."""
    out = [0, 0, 0, 0]
    made: set[int] = set()
    for ev in events:
        typ = ev.get("type")
        if typ == "start_kyoku":
            for s in made:
                out[s] += 1
            made.clear()
        elif typ in ("ankan", "kakan", "daiminkan"):
            made.add(int(ev["actor"]))
    for s in made:
        out[s] += 1
    return out


def record_rates(paths: Sequence[str], name: str | None = None) -> dict:
    """Per-hand win / deal-in / riichi / call / kan rates of every seat of some records
    pooled (e.g. the phoenix players', to set beside an evaluation's), or of the seats whose
    ``start_game`` name is ``name`` (an agent of an evaluation's logs); the points a win gains
    and a deal-in pays, and the wins by :data:`ROUTES` with the points of each."""
    from game.records import player_names, read_events

    tot = {k: 0 for k in COUNT_KEYS + POINT_KEYS + ROUTE_WINS + ROUTE_POINTS + ("kans",)}
    all_points = True
    hands = 0
    for path in paths:
        events = read_events(path)
        counts = {**count_hand_events(events, routes=True), "kans": count_kans(events)}
        all_points = all_points and all(k in counts for k in POINT_KEYS)
        names = player_names(events)
        seats = [s for s in range(4) if name is None or names[s] == name]
        hands += counts["hands"][0]
        for k, v in counts.items():
            tot[k] += sum(v[s] for s in seats)
    seat_hands = tot["hands"]
    return {"records": len(paths), "name": name, "hands": hands, "seat_hands": seat_hands,
            **{f"{k}_per_hand": _ratio(tot[k], seat_hands)
               for k in ("wins", "deal_ins", "riichi", "calls", "kans")},
            "points_per_win": _ratio(tot["win_points"], tot["wins"]) if all_points else None,
            "points_per_deal_in": _ratio(tot["deal_in_points"], tot["deal_ins"]) if all_points else None,
            "wins_by_route": {r: {"per_hand": _ratio(tot[f"wins_{r}"], seat_hands),
                                  "points_per_win": _ratio(tot[f"win_points_{r}"], tot[f"wins_{r}"]) if all_points else None}
                              for r in ROUTES}}


def _ratio(a: float, b: float) -> float:
    """``a / b``, NaN where there was nothing to divide by (no hands, no wins, no deal-ins)."""
    return a / b if b else math.nan


def hand_outcomes(events: Sequence[Mapping]) -> tuple[dict[tuple, list[str]], list[int]]:
    """Each hand's outcome for the four seats (``win``, ``deal-in``, ``other's win``,
    ``draw``), keyed ``(round wind, kyoku 0-based, honba)``, and the game's final scores (the
    last hand's start, its riichi deposits and its payments; deposits left on the table go to
    the first place, ties to the seat nearer the first dealer, as Tenhou pays them)."""
    from game.match import ranks_from_scores

    out: dict[tuple, list[str]] = {}
    scores: list[int] = []
    sticks = 0
    for e in events:
        t = e["type"]
        if t == "start_kyoku":
            key = ("ESWN".index(e["bakaze"]), e["kyoku"] - 1, e["honba"])
            out[key], scores, sticks = ["other's win"] * 4, list(e["scores"]), int(e.get("kyotaku", 0))
        elif t == "reach_accepted":
            scores[e["actor"]] -= 1000
            sticks += 1
        elif t in ("hora", "ryukyoku"):
            scores = [a + b for a, b in zip(scores, e.get("deltas") or [0] * 4)]
            sticks = sticks if t == "ryukyoku" else 0
            if t == "ryukyoku":
                out[key] = ["draw"] * 4
            else:
                out[key][e["actor"]] = "win"
                if e["target"] != e["actor"] and out[key][e["target"]] != "win":
                    out[key][e["target"]] = "deal-in"
    if scores and sticks:
        scores[list(ranks_from_scores(scores)).index(1)] += 1000 * sticks
    return out, scores


def rank_edge(paths: Sequence[str], name: str, hanchan: bool = False) -> dict:
    """Where the seats named ``name`` gain or lose rank: each hand's change of the seat's
    expected final rank (Eq. 1's shipped final-rank model at the hand's start and at the next
    one; the exact rank after the last), summed a game by the hand's phase (``all-last``:
    the last kyoku of the game's length and after it) and by its outcome. The changes of a
    seat's hands add up to its final rank less 2.5 (the model's expectation at the start is
    2.5 for every seat to within its fit)."""
    from game.records import player_names, read_events
    from player.reinforce import hand_rewards
    from regressors.estimators import load_default

    model = load_default("final_rank")
    last_wind = 1 if hanchan else 0
    sums: dict[str, dict[str, float]] = {"phase": {}, "outcome": {}}
    counts: dict[str, dict[str, int]] = {"phase": {}, "outcome": {}}
    games = 0
    for path in paths:
        events = read_events(path)
        names = player_names(events)
        outcomes, final = hand_outcomes(events)
        for seat in (s for s in range(4) if names[s] == name):
            games += 1
            for key, fall in hand_rewards(events, seat, final, model, hanchan).items():
                phase = "all-last" if (key[0], key[1]) >= (last_wind, 3) else "before"
                for by, label in (("phase", phase), ("outcome", outcomes[key][seat])):
                    sums[by][label] = sums[by].get(label, 0.0) - fall
                    counts[by][label] = counts[by].get(label, 0) + 1
    return {"records": len(paths), "name": name, "seat_games": games,
            **{by: {label: {"rank_a_game": sums[by][label] / games, "hands_a_game": counts[by][label] / games}
                    for label in sorted(sums[by])} for by in sums}}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m player.stats --records GLOB``: the records' per-hand rates (one seat's view)."""
    import argparse
    import json

    from game.cli import reports_errors
    from game.errors import MahjongError
    from game.records import iter_record_files

    @reports_errors
    def run() -> int:
        ap = argparse.ArgumentParser(prog="python -m player.stats",
                                     description="Per-hand win / deal-in / riichi / call / kan rates of a seat "
                                                 "in records")
        ap.add_argument("--records", required=True, nargs="+", help="glob(s) or paths of records")
        ap.add_argument("--name", help="only the seats of this name in start_game (an agent of evaluate's logs, "
                                       "e.g. mdp:kans=0); default every seat")
        ap.add_argument("--edge", action="store_true",
                        help="instead: where the --name seats gain or lose rank, each hand's change of "
                             "their expected final rank summed a game, by phase (all-last or before) and outcome")
        ap.add_argument("--hanchan", action="store_true", help="with --edge: the records are east-south games")
        args = ap.parse_args(argv)
        files = [str(p) for p in iter_record_files(args.records if len(args.records) > 1 else args.records[0])]
        if args.edge and not args.name:
            raise MahjongError("--edge needs --name: the seats whose rank is split")
        print(json.dumps(rank_edge(files, args.name, args.hanchan) if args.edge else record_rates(files, args.name),
                         indent=1))
        return 0

    return run()


if __name__ == "__main__":
    import sys

    sys.exit(main())
