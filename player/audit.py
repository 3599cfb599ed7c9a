"""Rollout audit: the audited agent's decisions played out both ways on the true wall.

    python -m player.audit --player mdp --vs cnn-bot --games 200 --seed 20261512 --workers 2 --out runs/audit
    python -m player.audit --summary runs/audit/audit.jsonl

The games are those of ``player.evaluate`` (the same walls, seats and agent seeds for one
``--seed``). At each audited decision of the player's seat the game is forked before the seat
acts (engine cloned, agents copied); the fork takes one other action, and all four agents play
the hand out from there. Each branch is valued as the MDP values an action: minus the seat's
expected final rank at the next hand's start (``regressors.final_rank``, Eq. 1; the exact rank
when the game ends). The chosen branch is the game itself (the agents are deterministic;
``--verify`` also plays it out in a fork and counts the rows where the two differ).

Kinds of decision and the other action each is played against:

* ``riichi``: own turn with riichi on offer: declared -> the player's best-valued discard
  without it; dama -> riichi;
* ``call``: a chi / pon / open kan on offer: called -> pass; passed -> the best-valued call;
* ``facing``: own discard while an opponent is in riichi (we are not): a discard other than
  the safest (genbutsu first, ``player/agents/safety.py``) -> the safest; the safest -> the
  player's runner-up;
* ``discard``: every ``--every``-th other own discard: -> the player's runner-up (another kind).

With ``--alt AGENT`` (e.g. ``mdp:riichi_danger=2``) the other action is instead that agent's
choice at every decision of the seat where it differs from the player's (a shadow of it
follows the game): the rows then estimate, decision by decision, what playing it for one
decision would change, and their sum per game the first-order difference between the two
players (the performance-difference lemma: the player's values, the alternative's choices).
That sum adds a hand's correlated rows, so it is noisy: per game of audit it measured no
more than a game of a paired match does, at several times its CPU (docs/sessions.md, "Session 22").

Both branches share the wall, so their difference is the decision's own effect on that deal:
its mean over many decisions, ``alt - chosen`` (> 0: the other action was better), estimates
what the player loses by its choice in a kind, and its slope against the player's own
predicted difference says how true the predicted values are.
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from game.cli import pyplot, reports_errors, save_figure, write_atomic
from game.errors import MahjongError
from game.match import legal_index, ranks_from_scores
from game.tiles import mjai_to_kind as kind_of
from player.agents.base import Event

KINDS = ("riichi", "call", "facing", "discard")
CALLS = ("chi", "pon", "daiminkan")
#: Objects an agent copy shares with the original: fitted models, never changed in play.
SHARED_TYPES = ("Estimators", "CnnPolicy", "ScenarioModel", "CnnEstimators", "Module")
AUDIT = "audit.jsonl"
GAMES = "games.jsonl"


def fork_agent(agent):
    """A deep copy of ``agent`` that shares its fitted models (and their parts)."""
    memo: dict[int, object] = {}
    for value in vars(agent).values():
        if any(t.__name__ in SHARED_TYPES for t in type(value).__mro__):
            memo[id(value)] = value
            for part in getattr(value, "__dict__", {}).values():
                memo[id(part)] = part
    return copy.deepcopy(agent, memo)


def decision_kind(state, legal: list[Event], discard_no: int, every: int) -> str | None:
    """The audit kind of a decision of the seat of ``state`` (None: not audited).
    ``discard_no``: how many plain own discards came before this one in the run."""
    types = {a["type"] for a in legal}
    if "hora" in types:
        return None
    if "reach" in types:
        return "riichi"
    if types & set(CALLS):
        return "call"
    if "dahai" not in types or state.reach_declared[state.seat]:
        return None
    if len({kind_of(a["pai"]) for a in legal if a["type"] == "dahai"}) < 2:
        return None
    if any(state.riichi[p] for p in range(4) if p != state.seat):
        return "facing"
    return "discard" if discard_no % every == 0 else None


def _values(agent) -> dict[str, float]:
    """The agent's values of its last decision's actions, by action (JSON key); none when
    the decision was not valued (a forced or rule-based move)."""
    out = {}
    for a, v in getattr(agent, "last_values", []) or []:
        if v is not None and v == v:
            out[_key(a)] = float(v)
    return out


def _key(action: Event) -> str:
    return json.dumps(action, sort_keys=True)


def _best(candidates: list[Event], values: dict[str, float]) -> Event | None:
    valued = [a for a in candidates if _key(a) in values]
    return max(valued, key=lambda a: values[_key(a)]) if valued else None


def safest_discard(agent, state, legal: list[Event]) -> Event:
    """The legal discard least dangerous against the opponents in riichi (safety.py's
    weights on the genbutsu the agent's efficiency fallback keeps), the more efficient
    first among equals."""
    from player.agents.efficiency import efficiency_keys
    from player.agents.safety import danger_vector

    eff = agent.fallback
    discards = [a for a in legal if a["type"] == "dahai"]
    kinds = [kind_of(a["pai"]) for a in discards]
    danger = np.zeros(34)
    for p in range(4):
        if p != state.seat and state.riichi[p]:
            danger += danger_vector(eff.genbutsu[p], state.unseen, kinds)
    keys = efficiency_keys(state, discards, eff.eff)
    return max(zip(discards, kinds, keys), key=lambda t: (-danger[t[1]], t[2]))[0]


def alternative(kind: str, agent, state, legal: list[Event], choice: Event) -> tuple[str, Event] | None:
    """(label, the other action) of an audited decision; None when there is none to try.
    The label says which way the choice went (e.g. ``dama``: riichi was not declared)."""
    values = _values(agent)
    discards = [a for a in legal if a["type"] == "dahai"]
    if kind == "riichi":
        if choice["type"] == "reach":
            alt = _best(discards, values) or (discards[0] if discards else None)
            return None if alt is None else ("declared", alt)
        return "dama", next(a for a in legal if a["type"] == "reach")
    if kind == "call":
        calls = [a for a in legal if a["type"] in CALLS]
        if choice["type"] in CALLS:
            return "called", next(a for a in legal if a["type"] == "none")
        return "passed", _best(calls, values) or calls[0]
    if choice["type"] != "dahai":
        return None
    others = [a for a in discards if kind_of(a["pai"]) != kind_of(choice["pai"])]
    if kind == "facing":
        safe = safest_discard(agent, state, legal)
        if kind_of(safe["pai"]) != kind_of(choice["pai"]):
            return "pushed", safe
        alt = _best(others, values)
        return None if alt is None else ("folded", alt)
    alt = _best(others, values)
    return None if alt is None else ("runner_up", alt)


def hand_value(rank_model, seat: int, start: Event | None, final_scores: Sequence[int] | None,
               hanchan: bool) -> float:
    """Minus the seat's expected final rank at the next hand's ``start_kyoku`` (Eq. 1), or
    minus its exact rank from the final scores when the game is over."""
    if start is None:
        return -float(ranks_from_scores(list(final_scores))[seat])
    er = rank_model.expected_rank(list(start["scores"]), "ESWN".index(start["bakaze"]), start["kyoku"] - 1,
                                  start["oya"], start["honba"], start["kyotaku"], hanchan=hanchan)
    return -float(er[seat])


def _choose(seed: int, pending, agents, forced: dict[int, Event]) -> dict:
    chosen = {}
    for p in pending:
        action = forced[p.seat] if p.seat in forced else agents[p.seat].act(p.legal)
        chosen[p.seat] = p.engine_actions[legal_index(action, p.legal, agents[p.seat], p.seat, seed, None)]
    return chosen


def play_out(game, agents, pending, forced: dict[int, Event]) -> tuple[Event | None, list[int]]:
    """Play a forked game (its agents copies) to the end of the hand: the seats of
    ``pending`` answer now (``forced`` where given), then everyone plays on. Returns the next
    ``start_kyoku`` (None when the game ended) and the scores then."""
    game.step(_choose(game.seed, pending, agents, forced))
    while not game.done:
        pending = game.pending()
        for p in pending:
            for event in p.events:
                if event["type"] == "start_kyoku":
                    return event, list(event["scores"])
                agents[p.seat].observe(event)
        game.step(_choose(game.seed, pending, agents, {}))
    return None, game.scores()


def _shanten(state) -> int:
    from search.shanten import shanten

    return int(shanten(np.asarray(state.hand, np.uint8)))


def audit_game(task: tuple) -> tuple[int, list[dict]]:
    """One game of ``player.evaluate``'s plan with the player's decisions audited (a worker
    task): its index and its rows, each with both branches' values."""
    from game.engine import EngineGame
    from player.selfplay import derive_seed, get_agent

    game_no, seed, seat, player, vs, every, verify, hanchan, alt_players = task
    names = [player if s == seat else vs for s in range(4)]
    agents = [get_agent(n, s, derive_seed(seed, 1000 + s)) for s, n in enumerate(names)]
    me = agents[seat]
    shadows = [(spec, _shadow(spec, seat, derive_seed(seed, 1000 + seat))) for spec in alt_players]
    fixed_ranks = None if hasattr(me, "est") else _final_rank()

    def rank_model():  # the player's own, read at each use: it picks its estimators at start_game
        return fixed_ranks if fixed_ranks is not None else me.est.final_rank

    game = EngineGame(seed, hanchan=hanchan, names=names)
    for s, agent in enumerate(agents):
        agent.start_game(s)
    rows: list[dict] = []
    open_rows: list[dict] = []
    discard_no = 0
    while not game.done:
        pending = game.pending()
        for p in pending:
            for event in p.events:
                if event["type"] == "start_kyoku" and open_rows:
                    for row in open_rows:
                        row["chosen_value"] = hand_value(rank_model(), seat, event, None, hanchan)
                        row["chosen_points"] = event["scores"][seat] - row["scores"][seat]
                    open_rows = []
                agents[p.seat].observe(event)
                if p.seat == seat:
                    for _, shadow in shadows:
                        shadow.observe(event)
        mine = next((p for p in pending if p.seat == seat), None)
        kind = None
        if mine is not None:
            kind = decision_kind(me.state, mine.legal, discard_no, 1 if shadows else every)
            discard_no += kind == "discard" or (kind is None and any(a["type"] == "dahai" for a in mine.legal))
        snapshot = (game.fork(), [fork_agent(a) for a in agents]) if kind else None
        choices = {p.seat: agents[p.seat].act(p.legal) for p in pending}
        chosen = {p.seat: p.engine_actions[legal_index(choices[p.seat], p.legal, agents[p.seat], p.seat, seed, None)]
                  for p in pending}
        if snapshot is not None:
            # the fixed alternative of the kind, or each shadow's choice where it differs
            others = [(None, None)] if not shadows else [(spec, sh.act(mine.legal)) for spec, sh in shadows]
            for spec, other in others:
                if spec is not None and other == choices[seat]:
                    continue
                row = _audit_row(kind, me, mine, choices[seat], snapshot, pending, rank_model(), hanchan, verify, other)
                if row is not None:
                    row.update(game=game_no, seed=seed, seat=seat, discard_no=discard_no, alt_agent=spec)
                    rows.append(row)
                    open_rows.append(row)
        game.step(chosen)
    final = game.scores()
    for row in open_rows:
        row["chosen_value"] = hand_value(rank_model(), seat, None, final, hanchan)
        row["chosen_points"] = final[seat] - row["scores"][seat]
    return game_no, rows


def _final_rank():
    from regressors.estimators import load_default

    return load_default("final_rank")


def _shadow(spec: str, seat: int, seed: int):
    """This process's shadow agent ``spec`` for ``seat``: it follows the audited seat's game
    and is asked the same decisions, never played."""
    from player.registry import make_agent

    agent = _SHADOWS.get(spec)
    if agent is None:
        agent = _SHADOWS[spec] = make_agent(spec, seed=seed)
    agent.reseed(seed)
    agent.start_game(seat)
    return agent


_SHADOWS: dict[str, object] = {}


def _audit_row(kind, me, mine, choice, snapshot, pending, rank_model, hanchan, verify, other=None) -> dict | None:
    state = me.state
    if other is not None:
        label = "differs"
    else:
        alt = alternative(kind, me, state, mine.legal, choice)
        if alt is None:
            return None
        label, other = alt
    values = _values(me)
    seat = state.seat
    row = {"kind": kind, "label": label, "shanten": _shanten(state), "tiles_left": int(state.tiles_left),
           "round": 4 * state.round_wind + state.kyoku, "honba": int(state.honba), "scores": list(state.scores),
           "method": me.method(state, mine.legal) if hasattr(me, "method") else None,
           "riichi_opponents": sum(bool(state.riichi[p]) for p in range(4) if p != seat),
           "chosen": choice, "alt": other,
           "pred_chosen": values.get(_key(choice)), "pred_alt": values.get(_key(other))}
    branches = [("alt", other)] + ([("verify", choice)] if verify else [])
    for name, action in branches:
        g, ags = snapshot[0].fork(), [fork_agent(a) for a in snapshot[1]]  # the snapshot serves every row
        start, scores = play_out(g, ags, pending, {seat: action})
        row[f"{name}_value"] = hand_value(rank_model, seat, start, scores, hanchan)
        row[f"{name}_points"] = scores[seat] - row["scores"][seat]
    return row


# ----------------------------------------------------------------------------- summary


def _mean_se(x: np.ndarray, hands: list) -> tuple[float, float]:
    """Mean and its standard error with the rows of one hand as one cluster: a hand's
    decisions share its wall, so they are not independent."""
    n = len(x)
    if n == 0:
        return math.nan, math.nan
    mean = float(x.mean())
    sums: dict = defaultdict(float)
    for v, h in zip(x, hands):
        sums[h] += v - mean
    c = len(sums)
    if c < 2:
        return mean, math.nan
    return mean, math.sqrt(sum(v * v for v in sums.values()) * c / (c - 1)) / n


#: Fields a summary can be split by (``--by``), each a function of a row.
BY = {
    "shanten": lambda r: r["shanten"],
    "tiles": lambda r: next(f"{lo}+" for lo in (60, 45, 30, 15, 0) if r["tiles_left"] >= lo),
    "alllast": lambda r: "all-last" if r["round"] >= 3 else "earlier",
    "place": lambda r: 1 + sum(s > r["scores"][r["seat"]] for s in r["scores"]),
    "method": lambda r: r.get("method"),
    "threats": lambda r: r.get("riichi_opponents"),
}


def _hand(row: dict) -> tuple:
    return row["game"], row["round"], row.get("honba", 0)


def summarize(rows: list[dict], games: int, by: Sequence[str] = ()) -> dict:
    """Per kind and way (label): rows, their share of the games, ``alt - chosen`` realised
    (mean +- SE; > 0: the other action did better), the share of rows it did better and
    worse, the player's own predicted ``alt - chosen`` on the rows it valued both, and the
    slope of realised on predicted there (1: values as true as the walls show). Standard
    errors take the rows of one hand together. ``by``: names of :data:`BY` that split the
    groups further."""
    unknown = [b for b in by if b not in BY]
    if unknown:
        raise MahjongError(f"--by: unknown field(s) {unknown}; known: {', '.join(BY)}")
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        label = row["label"] if row.get("alt_agent") is None else row["alt_agent"]
        groups[(row["kind"], label) + tuple(str(BY[b](row)) for b in by)].append(row)
    out = {"games": games, "rows": len(rows), "by": list(by), "groups": []}
    for key, sel in sorted(groups.items(), key=lambda kv: (KINDS.index(kv[0][0]),) + kv[0][1:]):
        kind, label = key[:2]
        d = np.array([r["alt_value"] - r["chosen_value"] for r in sel])
        mean, se = _mean_se(d, [_hand(r) for r in sel])
        both = [r for r in sel if r["pred_alt"] is not None and r["pred_chosen"] is not None]
        pred = np.array([r["pred_alt"] - r["pred_chosen"] for r in both])
        real = np.array([r["alt_value"] - r["chosen_value"] for r in both])
        slope = math.nan
        if len(both) > 2 and pred.std() > 0:
            slope = float(np.polyfit(pred, real, 1)[0])
        g = {"kind": kind, "label": label, **dict(zip(by, key[2:])), "n": len(sel), "per_game": len(sel) / max(games, 1),
             "gain_alt": mean, "se": se, "alt_better": float((d > 1e-9).mean()),
             "alt_worse": float((d < -1e-9).mean()), "valued": len(both),
             "pred_gain_alt": float(pred.mean()) if len(both) else math.nan, "slope": slope,
             "per_game_effect": mean * len(sel) / max(games, 1)}
        if any("verify_value" in r for r in sel):
            g["verify_mismatch"] = int(sum(abs(r["verify_value"] - r["chosen_value"]) > 1e-9 for r in sel))
        out["groups"].append(g)
    out["totals"] = _totals(rows, games)
    return out


def value_bins(rows: list[dict], n_bins: int = 5) -> list[dict]:
    """Per kind and way: the rows the player valued both ways, in ``n_bins`` bins of equal
    count by its predicted ``alt - chosen``, each bin's mean predicted and realised (+- SE,
    clustered by hand): a reliability table of the player's value differences."""
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        if row["pred_alt"] is not None and row["pred_chosen"] is not None:
            label = row["label"] if row.get("alt_agent") is None else row["alt_agent"]
            groups[(row["kind"], label)].append(row)
    out = []
    for (kind, label), sel in sorted(groups.items(), key=lambda kv: (KINDS.index(kv[0][0]), kv[0][1])):
        sel = sorted(sel, key=lambda r: r["pred_alt"] - r["pred_chosen"])
        for b, part in enumerate(np.array_split(np.arange(len(sel)), min(n_bins, len(sel)))):
            chunk = [sel[i] for i in part]
            pred = np.array([r["pred_alt"] - r["pred_chosen"] for r in chunk])
            real = np.array([r["alt_value"] - r["chosen_value"] for r in chunk])
            mean, se = _mean_se(real, [_hand(r) for r in chunk])
            out.append({"kind": kind, "label": label, "bin": b, "n": len(chunk), "pred_lo": float(pred[0]),
                        "pred_hi": float(pred[-1]), "predicted": float(pred.mean()), "realised": mean, "se": se})
    return out


def format_bins(bins: list[dict]) -> str:
    w = max([10] + [len(b["label"]) for b in bins])
    lines = ["the player's predicted alt - chosen in bins of equal count, against the realised",
             f"{'kind':8s} {'way':{w}s} {'predicted range':>21s} {'n':>5s} {'predicted':>10s} {'realised':>17s}"]
    for b in bins:
        lines.append(f"{b['kind']:8s} {b['label']:{w}s} [{b['pred_lo']:+.4f}, {b['pred_hi']:+.4f}] {b['n']:5d} "
                     f"{b['predicted']:+10.4f} {b['realised']:+8.4f} +- {b['se']:.4f}")
    return "\n".join(lines)


def plot_bins(bins: list[dict], path: Path) -> Path:
    """The reliability table as a figure: per kind and way, the realised ``alt - chosen``
    (+- 2 SE) of each bin against its predicted mean, beside the diagonal."""
    plt = pyplot()

    panels = sorted({(b["kind"], b["label"]) for b in bins}, key=lambda kl: (KINDS.index(kl[0]), kl[1]))
    if not panels:
        raise MahjongError("--plot: no row was valued both ways, nothing to draw")
    cols = min(4, len(panels))
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 3.1 * rows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (kind, label) in zip(axes.flat, panels):
        sel = [b for b in bins if (b["kind"], b["label"]) == (kind, label)]
        x = [b["predicted"] for b in sel]
        lo, hi = min(x + [b["realised"] for b in sel]), max(x + [b["realised"] for b in sel] + [0.0])
        ax.plot([lo, hi], [lo, hi], color="0.7", lw=1)
        ax.errorbar(x, [b["realised"] for b in sel], yerr=[2 * b["se"] for b in sel], fmt="o-", ms=4, capsize=2)
        ax.axhline(0, color="0.85", lw=0.8)
        ax.set_title(f"{kind}: {label}", fontsize=9)
        ax.set_xlabel("predicted alt - chosen", fontsize=8)
        ax.set_ylabel("realised alt - chosen", fontsize=8)
    fig.suptitle("The player's value differences against the walls (bins of equal count, +- 2 SE)", fontsize=10)
    return save_figure(fig, path, dpi=110)


def _totals(rows: list[dict], games: int) -> list[dict]:
    """For each ``--alt`` agent: its differing decisions a game and the per-game sum of
    ``alt - chosen`` (mean +- SE over the games, a game without rows counting 0): the
    first-order change of the player's mean rank, negated, if it took that agent's choices."""
    per: dict[str, dict] = defaultdict(lambda: defaultdict(float))
    for row in rows:
        if row.get("alt_agent") is not None:
            per[row["alt_agent"]][row["game"]] += row["alt_value"] - row["chosen_value"]
    out = []
    for spec, by_game in sorted(per.items()):
        sums = np.zeros(max(games, len(by_game)))
        sums[:len(by_game)] = list(by_game.values())
        n = len(sums)
        out.append({"alt": spec, "rows": sum(r.get("alt_agent") == spec for r in rows), "games": n,
                    "gain_per_game": float(sums.mean()),
                    "se": float(sums.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan})
    return out


def format_table(summary: dict) -> str:
    w = max([10] + [len(g["label"]) for g in summary["groups"]])
    lines = [f"{summary['rows']} audited decisions in {summary['games']} games; "
             "alt - chosen in minus expected final rank (> 0: the other action did better)",
             f"{'kind':8s} {'way':{w}s} " + "".join(f"{b:>9s} " for b in summary.get("by", [])) + f"{'n':>6s} {'/game':>6s} {'alt - chosen':>17s} {'better':>7s} "
             f"{'worse':>6s} {'predicted':>10s} {'slope':>6s} {'rank/game':>10s}"]
    for g in summary["groups"]:
        lines.append(f"{g['kind']:8s} {g['label']:{w}s} " + "".join(f"{g[b]:>9s} " for b in summary.get("by", []))
                     + f"{g['n']:6d} {g['per_game']:6.2f} "
                     f"{g['gain_alt']:+8.4f} +- {g['se']:.4f} {g['alt_better']:7.3f} {g['alt_worse']:6.3f} "
                     f"{g['pred_gain_alt']:+10.4f} {g['slope']:6.2f} {-g['per_game_effect']:+10.4f}"
                     + (f"  verify: {g['verify_mismatch']} differ" if "verify_mismatch" in g else ""))
    lines.append("rank/game: the mean rank the player would change per game by always taking the "
                 "other action in that row (< 0: better), one decision at a time")
    for t in summary.get("totals", []):
        lines.append(f"{t['alt']}: {t['rows'] / max(t['games'], 1):.2f} differing decisions a game; "
                     f"sum of alt - chosen a game {t['gain_per_game']:+.4f} +- {t['se']:.4f} "
                     f"(mean rank {-t['gain_per_game']:+.4f} if the player took its choices)")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- command line


def read_rows(path: Path) -> list[dict]:
    """The rows of an ``audit.jsonl``; a malformed line is an error naming the file and line."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise MahjongError(f"{path}:{no}: not a JSON line ({exc.msg})") from None
    return rows


def check_audited(player: str, fixed: bool) -> None:
    """MahjongError unless ``player`` is an agent the audit can read: one that keeps its
    table (``state``); for the kinds' fixed alternatives (``fixed``) also its values
    (``last_values``), estimators (``est``) and efficiency twin (``fallback``), as ``mdp`` does."""
    from player.registry import make_agent

    agent = make_agent(player)
    needs = ("state", "last_values", "est", "fallback") if fixed else ("state",)
    if not all(hasattr(agent, a) for a in needs):
        raise MahjongError(f"--player {player!r}: the audit's fixed alternatives read an mdp agent's values "
                           f"and table ({', '.join(needs)}); {type(agent).__name__} lacks them (try --alt AGENT)")


def audit(player: str, vs: str, games: int, out_dir: Path, *, seed: int, every: int = 4,
          workers: int | None = None, verify: bool = False, hanchan: bool = False,
          alt: Sequence[str] = ()) -> dict:
    """Play ``games`` games of ``player.evaluate``'s plan with ``player``'s decisions audited
    (against the choices of each agent of ``alt`` when given); write every row to ``out_dir/audit.jsonl``
    (resumed by game) and return the summary."""
    from player.evaluate import game_plan
    from player.rundir import check_seed
    from player.selfplay import check_agent_name, run_pool

    check_seed(seed)
    for name in (player, vs):
        check_agent_name(name)
    check_audited(player, fixed=not alt)
    for name in alt:
        check_agent_name(name)
    if every < 1 or games < 1:
        raise MahjongError(f"--every and --games must be >= 1, got {every} and {games}")
    if out_dir.exists() and not out_dir.is_dir():
        raise MahjongError(f"--out {out_dir} is a file, not a directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / AUDIT
    rows = read_rows(path) if path.exists() else []
    played = out_dir / GAMES
    done = {r["game"] for r in read_rows(played)} if played.exists() else set()
    rows = [r for r in rows if r["game"] in done]  # a game cut short is played again whole
    alt = tuple(alt)
    run = {"player": player, "vs": vs, "seed": seed, "every": every, "alt": list(alt), "hanchan": hanchan}
    _check_run(out_dir, run)
    tasks = [(g, s, seat, player, vs, every, verify, hanchan, alt) for g, _, s, seat in game_plan(games, seed)
             if g not in done]
    write_atomic(path, "".join(json.dumps(r) + "\n" for r in rows))
    with open(path, "a", encoding="utf-8") as f, open(played, "a", encoding="utf-8") as gf:
        for game_no, game_rows in run_pool(audit_game, tasks, workers, "audit", total=games,
                                           initial=games - len(tasks)):
            f.write("".join(json.dumps(r) + "\n" for r in game_rows))
            f.flush()
            gf.write(json.dumps({"game": game_no, "rows": len(game_rows)}) + "\n")
            gf.flush()
            rows.extend(game_rows)
    summary = summarize(rows, games)
    summary.update(run)
    write_atomic(out_dir / "summary.json", json.dumps(summary, indent=1))
    return summary


def _check_run(out_dir: Path, run: dict) -> None:
    """Write ``run.json``, or check that the folder holds the same audit (a resume)."""
    path = out_dir / "run.json"
    if path.exists():
        old = json.loads(path.read_text())
        if old != run:
            raise MahjongError(f"{out_dir} holds another audit ({old}); choose another --out")
    else:
        write_atomic(path, json.dumps(run, indent=1))


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m player.audit", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--player", default="mdp", help="the audited agent, NAME[:KEY=VALUE,...] (default mdp); the kinds' fixed "
                    "alternatives need an mdp agent (its values), --alt any agent that keeps its table")
    ap.add_argument("--vs", default="cnn-bot", help="the three opponents (default cnn-bot)")
    ap.add_argument("--games", type=int, default=100, help="games of evaluate's plan (default 100)")
    ap.add_argument("--seed", type=int, default=0, help="evaluate's --seed: the same walls and seats")
    ap.add_argument("--every", type=int, default=4,
                    help="audit every k-th plain own discard (default 4; riichi, calls and discards "
                         "facing a riichi are all audited)")
    ap.add_argument("--alt", action="append", default=[],
                    help="audit against this agent's choices (NAME[:KEY=VALUE,...]) at every decision "
                         "where they differ from the player's, instead of the kinds' fixed alternatives "
                         "(repeat for several: one game serves them all)")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: every CPU)")
    ap.add_argument("--verify", action="store_true",
                    help="also play the chosen action out in a fork and count where it differs from the game")
    ap.add_argument("--out", type=Path, default=None, help="output folder (default runs/audit_<player>_seed<S>)")
    ap.add_argument("--summary", type=Path, default=None,
                    help="only summarise an existing audit.jsonl (its games counted in games.jsonl beside it)")
    ap.add_argument("--by", type=lambda v: [b for b in v.split(",") if b], default=[],
                    help=f"split the table by these fields, comma-separated ({', '.join(BY)})")
    ap.add_argument("--bins", type=int, default=0,
                    help="also print the reliability table of the player's value differences in this many bins")
    ap.add_argument("--plot", type=Path, default=None,
                    help="draw the reliability table (--bins, default 5) to this PNG")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    return ap


@reports_errors
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.bins < 0:
        raise MahjongError(f"--bins must be >= 0 (0: no table), got {args.bins}")
    if args.plot is not None:
        if args.plot.is_dir():  # before the long run, not after it
            raise MahjongError(f"--plot {args.plot} is a directory; name a .png file")
        args.bins = args.bins or 5
    if args.summary is not None:
        if not args.summary.is_file():
            raise MahjongError(f"--summary {args.summary}: no such file")
        rows = read_rows(args.summary)
        played = args.summary.with_name(GAMES)
        games = len(read_rows(played)) if played.is_file() else len({r["game"] for r in rows})
        summary = summarize(rows, games, args.by)
        if args.bins:
            summary["bins"] = value_bins(rows, args.bins)
    else:
        out = args.out or Path("runs") / f"audit_{args.player}_seed{args.seed}"
        summary = audit(args.player, args.vs, args.games, out, seed=args.seed, every=args.every,
                        workers=args.workers, verify=args.verify, alt=args.alt)
        if args.by:
            summary = {**summary, **summarize(read_rows(out / AUDIT), args.games, args.by)}
    if args.bins and "bins" not in summary:
        summary["bins"] = value_bins(read_rows(out / AUDIT), args.bins)
    if args.plot is not None:
        summary["plot"] = str(plot_bins(summary["bins"], args.plot))
    text = format_table(summary) + ("\n\n" + format_bins(summary["bins"]) if args.bins else "")
    print(json.dumps(summary, indent=1) if args.json else text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
