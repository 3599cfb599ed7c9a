"""PSM, inclusive-policy solitary mahjong (Kurita & Hoki Sec. VI-A1, Eqs. 6-10).

All five endings are modelled: win (tsumo Eq. 6, ron at an opponent's discard), lose (Eq. 7's
``P_L`` branch), other win (Eq. 8's ``P_O``), and washout at the horizon ``T`` or by the
per-turn draw probability. The third state type's ``a_stop`` is folding with the FSM value
(spec 9.2 A1; ``params.fold=False`` turns it off; with ``params.fold_turns`` the fold meets
the per-turn ``P_O`` of the turns it is played in). At an opponent's discard the hand may also
TAKE (pon, chi) into the graph's open states and discard (Eq. 10; ``params.calls``), and after
a draw a closed hand may declare riichi with a discard into a tenpai hand, entering its locked
twin (Sec. VI-E, spec A11; ``params.riichi``). With ``params.later_riichi`` an opponent's riichi
comes between our turns as a chance event into a second PSM over the same graph, the world
facing it (solved first); the tracked endings follow it into that world. Solved exactly by
retrograde analysis over the reduced hand graph.
The tracked endings count a planned fold as ``fold``, or with ``params.split_fold`` as that
fold itself ends (FSM's Eq. 14 and its siblings, from the state and turn it is made at).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from abstractions._solve import RootValues, locked, run
from abstractions.fsm import fsm_fold_chances, fsm_stop_values
from abstractions.params import MDPParams
from search.hand_graph import HandGraph
from search.retrograde import turns_read


def solve_psm(graph: HandGraph, params: MDPParams, *, drawn: int | None = None, riichi: bool = False,
              track: bool = True, root_only: bool = False, keep: bool = False) -> RootValues:
    """Values of the root actions under PSM (Method 1, Eq. 16) and the ending probabilities.

    ``riichi``: *i* has declared riichi, so the hand is locked (no exchanges, calls or fold;
    pass the riichi win payoff as ``params.payoff``).
    ``drawn``: the kind just drawn by a 14-tile root, for the tsumo payoff.
    The result holds ``discards`` and ``riichi`` (riichi + discard) for a 14-tile root, and
    ``stay``, ``pass_`` and ``calls`` for a 13-tile root at an opponent's discard.
    ``root_only``: solve only what the root's actions read (the same root values, less work;
    ``VF``/``ED`` elsewhere NaN, see :func:`search.retrograde.solve`). ``keep`` (with ``track``):
    the result's ``endings_at`` gives the endings at any pairs (for the world before an event).
    """
    p = params.checked(graph.unseen)
    g = locked(graph) if riichi else graph
    v_stop = fold_split = None
    if p.fold and not riichi:
        growth = p.lose_growth if p.fold_growth else np.ones(p.T)
        # no fold after riichi; past the turns a root-only solve takes, none is read
        p_turns = p.p_other if p.fold_turns else None
        v_stop = fsm_stop_values(graph.hands, p.p_lose, p.u_lose, p.fsm_p, p.u_other, p.u_end, p.T, growth,
                                 kmax=turns_read(graph, p.T) if root_only else None,
                                 locked=graph.riichi if graph.n_twins else None, p_turns=p_turns, tail=p.fold_tail)
        if p.split_fold and track:
            fold_split = (fsm_fold_chances(graph.hands, p.p_lose, p.u_lose, p.fsm_p, p.u_other), growth,
                          p.fsm_p if p_turns is None else p_turns, p.fold_tail)
    event = None
    if p.later_riichi is not None:
        # the endings follow the event (the world after it gives its own at the pairs it comes
        # at), a fold there split as this world's folds are
        after_p = replace(p.later_riichi.params, split_fold=p.split_fold)
        after = solve_psm(graph, after_p, drawn=drawn, riichi=riichi, track=track, root_only=root_only,
                          keep=track)
        event = (p.later_riichi.q, after.VF, after.endings_at)
    return run(g, p, v_stop=v_stop, allow_win=True, drawn=drawn, track=track, root_only=root_only, event=event,
               fold_split=fold_split, keep=keep)
