"""Every legal action of a situation, valued by the MDP player: the library call of review.

    >>> from game.records import read_events
    >>> from player.analyze import analyze
    >>> events = read_events("../shared/data/phoenix/mjlog/gimite__test.xml")
    >>> res = analyze(events, seat=0, decision=10)      # seat 0's 11th decision
    >>> res["method"], res["actions"][res["best"]]["action"]["type"]      # doctest: +SKIP
    ('method1', 'dahai')
    >>> [(a["action"].get("pai"), a["expected_rank"], a["deal_in"]) for a in res["actions"]]  # doctest: +SKIP

The numbers are the player's own (one code path: :meth:`player.agents.mdp.MdpAgent.value`):
``expected_rank`` is the expected final rank of the game after the action (Eq. 1 with Method
1's PSM continuation, or Method 2's Eq. 17 where the player uses it; lower is better),
``endings`` the predicted probabilities of how the hand ends (``search.retrograde.OUTCOMES``:
win, lose, another's win, tenpai / noten washout, fold), ``deal_in`` for a discard the chance
that it is ronned at once (Eq. 20). ``method`` says how the decision is made: ``method1`` or
``method2`` (valued), ``rule_based`` (4 or more shanten: the efficiency
agent's move, no values) or ``forced`` (a win on offer, a riichi hand, one legal action, no
chi/pon on offer). The result is plain JSON-serialisable data.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from game.errors import MahjongError

#: The methods that value the actions (``MdpAgent.method``).
VALUED = ("method1", "method2")


def default_player(events: list[dict], agent=None):
    """``agent``, or an MDP player for the record's length (east-only or hanchan)."""
    if agent is not None:
        return agent
    from player.agents.mdp import MdpAgent
    from regressors.datasets import is_hanchan

    return MdpAgent(hanchan=is_hanchan(events))


def analyze(events: list[dict[str, Any]], seat: int, *, decision: int = -1, agent=None) -> dict:
    """Value every legal action of ``seat``'s ``decision``-th decision in ``events`` (mjai
    events of a record; default the last one, e.g. events that stop at the point to study).

    ``agent``: an :class:`~player.agents.mdp.MdpAgent` to reuse (its game is left alone);
    by default one for the record's length (east-only or hanchan). Raises
    :class:`MahjongError` when the seat has no such decision.
    """
    from game.decisions import iter_decisions

    if not 0 <= int(seat) < 4:
        raise MahjongError(f"seat {seat} is outside 0..3")
    found = list(iter_decisions(events, seats=[int(seat)]))
    if not found:
        raise MahjongError(f"seat {seat} has no decision in these events")
    k = int(decision) + (len(found) if decision < 0 else 0)
    if not 0 <= k < len(found):
        raise MahjongError(f"seat {seat} has {len(found)} decisions, no decision {decision}")
    player = default_player(events, agent)
    for earlier in found[:k]:  # the seat's past turns, which cnn-bot's net reads at near-ties
        player.remember(earlier.state, earlier.legal)
    res = value_decision(player, found[k])
    res["decision"] = k
    return res


def value_decision(player, d) -> dict:
    """The result of :func:`analyze` for one :class:`~game.decisions.Decision` ``d`` of
    ``player`` (an :class:`~player.agents.mdp.MdpAgent`, left untouched): the loop body that
    ``player.review`` runs over a whole record without replaying it once per decision."""
    from search.retrograde import OUTCOMES
    from search.shanten import shanten
    from game.tiles import mjai_to_kind

    method = player.method(d.state, d.legal)
    if method in VALUED:
        valued = player.value(d.state, d.legal)
        p_lose = player.last_situation.estimates.p_lose  # the estimates the values used
    else:
        valued = [(a, None, None) for a in d.legal]
        p_lose = player.est.decision(d.state).p_lose
    actions = []
    for a, v, e in valued:
        actions.append({
            "action": dict(a),
            "value": None if v is None else float(v),
            "expected_rank": None if v is None else float(-v),
            "endings": None if e is None else {o: float(x) for o, x in zip(OUTCOMES, e)},
            "deal_in": float(p_lose[mjai_to_kind(a["pai"])]) if a["type"] == "dahai" else None,
        })
    best = None
    if method in VALUED:  # the player's own argmax (its tie-breaks included)
        best = next(i for i, (a, _, _) in enumerate(valued) if a is player.last_choice)
    info = {k: v for k, v in player.last_info.items() if k != "outcomes"} if method in VALUED else {}
    return {"seat": int(d.seat), "event_index": int(d.index), "tiles_left": int(d.state.tiles_left),
            "shanten": int(shanten(np.asarray(d.state.hand, np.uint8))), "method": method,
            "recorded": dict(d.chosen), "actions": actions, "best": best, "inputs": info}
