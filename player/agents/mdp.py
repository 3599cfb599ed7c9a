"""The MDP player of Kurita & Hoki: every legal action valued by its expected final rank.

Greedy player of Sec. V (``specs/kurita_hoki.md`` 2.4, 4.1, 8):

* **Wins** (tsumo, ron, chankan; Eq. 3) are always taken: a win pays points and never lowers
  the winner's standing (simplest reading of "win when it does not lower the expected rank").
* **Discards, riichi + discard, call + discard** (Eqs. 4, 5) are valued with Method 1 (Eq. 16):
  the continuation ``V(I+)`` is the PSM root value of the hand after the action, solved by
  retrograde analysis over the reduced hand graph (``search.hand_graph``,
  ``abstractions.psm``), with the chance parameters and payoffs of
  :mod:`abstractions.situation` (estimators + final-rank model). PSM may fold (spec A1), so
  folding comes out of the same values. A riichi is planned at the ``reach`` decision (the
  best ``riichi + discard`` against the best plain discard) and its discard made at the next.
* **Pass** at an opponent's discard is the PSM value of drawing next (Eq. 9); each legal chi /
  pon is the best ``call + discard`` of the graph's TAKE options (Eq. 10). A call the graph does
  not hold (outside ``H``) is never chosen.
* **Kans** (closed, added, open; spec A9 leaves them out of the MDPs, so they are valued at
  the root only): the value of the replacement draw, Eq. 9 at the hand after the kan (Eq. 17
  where Method 2 values that hand), i.e. the value of drawing next in the graph rooted at the
  concealed hand left with the kan among its melds, with the parameters of
  :func:`abstractions.situation.after_kan` (the new dora in expectation, one turn less when
  the kan takes the last one; riichi still possible after a closed kan). After an accepted
  riichi a closed kan on offer is valued the same way against the discard of the draw, both
  with the hand locked. ``kans=False`` never chooses one.
* **Nine terminals** (``ryukyoku``) is valued as the abortive draw's situation (nothing paid,
  the dealer repeats) against the best discard.
* After an accepted riichi the hand is locked: win or discard the draw (no search, unless a
  closed kan is on offer).
* **Method 2 at 2-3 shanten** (``method2``, on by default): the discards, pass and calls
  of a hand at :data:`METHOD2_SHANTEN` are valued by Eq. 17 from the WSM, TSM and FSM run
  over the same graph (:mod:`abstractions.method2`) and Eq. 18's scenario regressions
  (``regressors/models/scenarios.json``, fitted on the endings of the player's own games:
  ``python -m player.scenario_data``, ``python -m regressors.scenarios``); a kan whose hand
  after it is at 2-3 shanten is valued the same way, as that hand's ``pass`` (Eq. 17).
* **Near-ties at 2-3 shanten** (``tie`` = :data:`TIE`, ``tie_by`` = :data:`TIE_BY`): the
  reduced graphs of far hands leave many discards within a hair of each other (in about half
  of the Method 2 decisions two or more lie within 0.003 expected rank of the best); those
  within ``tie`` of the best are told apart by cnn-bot's discard net (:data:`TIE_NET`, the
  net of session 10: taught by this player's own choices and the phoenix players', so it
  carries what the small graphs leave out) or, with ``tie_by=efficiency``, by tile efficiency (it agreed more with expert
  players and played worse), from ``tie_shanten`` shanten up; ``tie=0`` is the plain argmax.
  The values stay the MDP's: the net only orders what they cannot tell apart.

Every decision is counted in ``stats`` by how it was made (:data:`METHODS`): ``method1``
(PSM values), ``method2`` (Eq. 17), ``rule_based`` (4 or more shanten: the paper's rule-based range, Sec. VII),
``error_fallback`` (a graph that cannot be built: a bug or a limit to fix), ``forced`` (a win,
one legal action, a riichi hand without a kan on offer, no chi/pon/kan on offer). The
rule-based and error moves are the efficiency agent's (``player/agents/efficiency.py``: fold
against threats, else tile efficiency), which this agent feeds every event. A kan left
unvalued because the hand after it is out of the MDP's range counts in ``stats["kan_unvalued"]``.

Explainability: ``last_values`` holds ``(action, value)`` for every legal action of the last
decision (value = minus the expected final rank; None where not valued), ``last_endings`` the
PSM's predicted ending probabilities of each (``search.retrograde.OUTCOMES``; in play a Method 1
decision solves for the values alone and its endings are solved for on their first read, since
the choice needs only the values: :attr:`MdpAgent.last_endings`), ``last_choice`` the
action chosen among them, ``last_info`` the
decision's inputs (shanten, T, graph size, PSM ending probabilities of the choice), and
:meth:`explain` prints them. Deterministic: ``reseed`` does nothing.
"""
from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from abstractions import method2
from abstractions.fsm import fsm_closed_form
from abstractions.psm import solve_psm
from abstractions.situation import (HAZARD_FITS, TableModel, RankTable, Situation, after_kan, check_hazard_fits,
                                    checked_hazard_scale, checked_riichi_danger, situation_of)
from game.errors import MahjongError
from game.state import TableState
from game.tiles import mjai_to_kind
from player.agents.base import Agent, Event, find
from player.agents.efficiency import EfficiencyAgent, efficiency_keys
from search.hand_graph import CHI_CODE, DEFAULT_D, DEFAULT_M, DEFAULT_MAX_STATES, HandGraph, build_graph
from search.retrograde import OUTCOMES
from search.shanten import shanten

if TYPE_CHECKING:
    from regressors.estimators import Estimators

#: Hands this many shanten or more are left to the fallback (Sec. VII: rule-based > 3); the
#: ``far`` option moves the bound, within :data:`FAR_RANGE` (``far=3``: the efficiency agent
#: plays 3-shanten hands too; ``far=5``: Method 2 values 4-shanten hands as it does 2-3).
MAX_SHANTEN = 4
#: The values ``far`` may take (both ends measured in session 19: worse than 4, README).
FAR_RANGE = (2, 5)
#: Calls (step 4's m) in the graph of a call decision, at every shanten the MDP plays: the
#: call on offer and one more, so that calling does not cost the later calls that passing
#: keeps; past the state budget the graph lowers it itself.
CALL_M = 2
#: State budget of a call decision's graph (its 2-shanten graphs with a call are about
#: 5,000-15,000 states: the own-turn budget of 5,000 dropped the calls of most of them).
CALL_STATES = 20_000
#: The values ``call_bonus`` and ``riichi_bonus`` may take (expected rank added to a call or a
#: riichi at the choice; session 48 measured +-0.01-0.02 either way: even or worse).
CALL_BONUS_RANGE = (-0.1, 0.1)
#: Discards within this much expected rank of the best (``tie`` option) are ordered by
#: :data:`TIE_BY` at :data:`TIE_SHANTEN` or more shanten, where the graphs are cut by the
#: state budget and ``d``. 0.003 with cnn-bot's discard net, chosen against 0.01 and off on
#: 400 development games (seed 20261301); ordered by tile efficiency instead (3e-4), the
#: player agreed more with the phoenix players and lost in games (README, "Strength"). It
#: orders 26 % of the decisions (55 % of Method 2's); off (``tie=0``), the player finished
#: 0.09 +- 0.03 rank worse against cnn-bot on 2,000 report games (docs/sessions.md, "Session 41");
#: 0.006 and 0.0015 played no better on development games (session 48).
TIE = 0.003
TIE_SHANTEN = 2
#: The values ``tie_soft`` may take: the expected rank one unit of the net's log-probability
#: is worth when it orders the near-ties (0: the net's likeliest, whatever the values say).
TIE_SOFT_RANGE = (0.0, 0.05)
#: The net's probabilities count as at least this in ``tie_soft``'s log (a kind it never throws).
TIE_SOFT_FLOOR = 1e-6
#: What orders the near-ties (``tie_by``): cnn-bot's discard net or the efficiency agent's keys.
TIE_ORDERS = ("cnn", "efficiency")
#: The folder of the discard net that orders the near-ties and plays ``far_by=cnn``: cnn-bot's
#: net of session 10, the one ``TIE`` was chosen with. cnn-bot's own net moves on (session 14:
#: DAgger, ``cnn/README.md``); the player keeps this one, so that a new opponent does not
#: change the player unmeasured.
TIE_NET = Path(__file__).resolve().parents[2] / "cnn" / "models" / "mdp_ties"
TIE_BY = "cnn"
#: What plays the own-turn discards of hands at :data:`MAX_SHANTEN` or more (``far_by``), out
#: of the MDP's range: the efficiency agent (its move, folds included) or cnn-bot's discard
#: net among the legal discards where the efficiency agent would discard (its other moves
#: stay). The net lost on 400 development games (seed 20261401: 0.063 +- 0.025 rank worse)
#: and agrees less with the phoenix players at 4+ shanten (0.441 against 0.490).
FAR_ORDERS = ("efficiency", "cnn")
FAR_BY = "efficiency"
#: How a hand at :data:`MAX_SHANTEN` or more folds where the efficiency agent folds
#: (``far_fold``; a threat: a riichi or three calls): the first discard of FSM's fold (Eq. 12's
#: order of the estimators' deal-in chances and payoffs, ``abstractions.fsm``; issue 8 asks
#: the rule-based range to fold by FSM's order) or the efficiency agent's safety heuristics
#: (genbutsu, suji, visible counts; ``player/agents/safety.py``). Such folds are rare (0.06 a
#: seat a game): of 95 in 400 development games (seed 20261526, all seats) and 68 in the 42
#: phoenix games, the two differ in 22 and 25, and by the riichi players' true waits the
#: heuristics' discards would have dealt in twice, FSM's once (docs/sessions.md, "Session 37").
FAR_FOLDS = ("fsm", "efficiency")
FAR_FOLD = "fsm"
#: Own-turn graphs of far hands: ``d`` of a 3-shanten root (``search.hand_graph``'s default
#: 3, its shanten: only the shortest paths to a win) and the state budget of a 2-shanten root
#: (the graph's default 5,000 cuts ``d = 3`` to 2 in about half of them); 3-shanten roots keep
#: the graph's budget of 50,000 states. ``d3=4, states2=20000`` agrees more with the phoenix
#: players and was not stronger in games (README, "Strength"), at 2.5 times the CPU; nor with
#: Method 2's regressions refitted on its own features (docs/sessions.md, "Session 34"); nor
#: ``states2=20000`` alone with its own refit, over 2,000 development games (session 50: +0.006 +- 0.022).
D3 = 3
STATES2 = 5_000
#: Own-turn graphs of near hands: ``d`` of a tenpai and of a 1-shanten root and ``m`` of a
#: 1-shanten root (``search.hand_graph``'s defaults 2, 2 and 1, the schedule that kept those
#: decisions near 30 ms in ``search_performance.md``); spec A8 suggests 3, 3 and 2, the
#: paper's sizes (``mdp:d0=3,d1=3,m1=2``).
D0, D1, M1 = DEFAULT_D[0], DEFAULT_D[1], DEFAULT_M[1]
NEG = -math.inf
#: The kans, valued at the root (spec A9 keeps them out of the graph).
KANS = ("ankan", "kakan", "daiminkan")
#: How a decision was made, the keys of ``MdpAgent.stats`` besides ``decisions``.
METHODS = ("method1", "method2", "rule_based", "error_fallback", "forced")
#: The shanten numbers valued by Method 2 when it is on (the paper's 2-3; with ``far=5`` also
#: 4, with ``far=3`` 2 only: Method 2 runs from the first of them up to ``far``).
METHOD2_SHANTEN = (2, 3)
#: Method 2's first shanten (``m2_from``): the paper's 2, or 1 to value the 1-shanten hands by
#: Eq. 17 too, with regressions of their own (``regressors.scenarios.SHANTEN1_PATH``, fitted on
#: 1-shanten rows only: the shipped ones saw 2-3 shanten hands).
M2_FROM = (1, 2)
#: Method 2 at :data:`METHOD2_SHANTEN` (``method2``): on. Against Method 1 there, on 400
#: development games (seed 20261130), the same mean rank (2.223 vs 2.217, +-0.062) with more
#: wins and fewer deal-ins a hand (0.225 / 0.119 vs 0.216 / 0.124); then on the 1,000 games of
#: report seed 20261201, 0.098 +- 0.042 rank better (p = 0.010) (README, "Strength").
METHOD2 = True
#: Where the opponents' ron chances ``P(ron_j(t))`` of Eq. 20 come from (``deal_in``): the
#: logistic tenpai model times the wait histogram or enumeration (``regressors``, the paper's
#: way), or the CNN estimators' ron head (``cnn.estimators``, the product learned in one
#: piece; weights ``deal_in_file``, by default :data:`DEAL_IN_CNN`).
DEAL_IN_SOURCES = ("lr", "cnn")
DEAL_IN = "lr"
DEAL_IN_CNN = Path(__file__).resolve().parents[2] / "cnn" / "models" / "estimators.pt"
#: Estimators fitted at one table (``regressors/models/tables/<opponent>``, the opponent's
#: agent name): the records of games against three of that opponent, so that its tenpai,
#: waits, pace and win values are the ones the player meets (docs/sessions.md, "Session 23").
TABLES_DIR = Path(__file__).resolve().parents[2] / "regressors" / "models" / "tables"
TABLE_OPPONENTS = ("cnn-bot", "mdp")
#: Which estimators a game is played with (``table``): the shipped ones fitted on a mixture
#: of tables (``mixed``); ``auto`` those of the table when the three opponents' names in
#: ``start_game`` are one of :data:`TABLE_OPPONENTS`, else the mixture's; or one table's
#: always. ``auto`` against cnn-bot: 0.125 +- 0.050 rank better on 400 development games
#: (seed 20261511), then 0.066 +- 0.028 worse on the 1,000 report games of seed 20261317
#: (docs/sessions.md, "Session 23"): not the default. The ``mdp`` table (400 games of the default's
#: self-play) predicts fresh self-play's endings a little closer (the same 14 of 17 cells
#: within 0.05 as the mixture's; docs/sessions.md, "Session 31"): an option too.
TABLE_CHOICES = ("auto", "mixed", *TABLE_OPPONENTS)
TABLE = "mixed"
#: Eq. 1's final-rank model (``rank_file``): the hands left played out from the recorded hands
#: of 400 of the default's games against three cnn-bot (``regressors.rank_sim``). Against the
#: estimators' logistic regression (``rank_file=estimators``): held-out log loss 1.1453 /
#: 1.1591 on 400 self-play games and 1.2058 / 1.2284 on the 42 phoenix games; on 1,200
#: development games against cnn-bot (seeds 20261527-20261529) 0.018 +- 0.027 rank better,
#: each of the three sets the same way, and on the 1,000 report games of seed 20261320
#: 0.022 +- 0.030 (docs/sessions.md, "Session 36").
RANK_FILE = Path(__file__).resolve().parents[2] / "regressors" / "models" / "rank_sim.json"
RANK_ESTIMATORS = "estimators"
#: The other-win hazard refitted on 600 games of session 45's player with the others' riichi by
#: the wall (``python -m regressors.hazard_refit``; held-out log loss 0.22916 against the shipped
#: 0.23018; regressors/README.md), played by ``hazard_file`` (docs/sessions.md, "Session 51").
HAZARD_S51 = Path(__file__).resolve().parents[2] / "regressors" / "models" / "hazard_s51.json"
#: The default's other-win hazard: the shipped estimators' hazard with ``other`` and ``p_abort``
#: refitted on 300 games of session 53's default's own self-play (seed 31014), reading our own
#: hand's shanten too (``regressors.hazard.OWN_HAND_FEATURES``; held-out log loss 0.23343 against
#: 0.23416; regressors/README.md). With ``TableModel.fold_tail`` every 0-2 shanten cell of the
#: player's own self-play came within 0.05 (11 of 12 cells, session 54), and it played the
#: player before even (2,000 paired games against cnn-bot, +0.008 +- 0.011; docs/sessions.md,
#: "Session 54", "Session 55"). ``hazard_s52.json`` (the default of sessions 53-54) is the same
#: refit on session 52's default's self-play without our hand's terms. It refits the shipped
#: estimators' hazard, so estimators of their own (an ``estimators`` object, ``est_dir``) or of
#: a table (``table``) keep their own hazard.
HAZARD_FILE = Path(__file__).resolve().parents[2] / "regressors" / "models" / "hazard_s54.json"
#: ``hazard_file`` that plays the estimators' own hazard (the default before session 53).
HAZARD_ESTIMATORS = "estimators"
#: The default's Method 2 regressions (Eq. 18): refitted in session 55 on 31,969 rows that the
#: default's agent built on 800 games of the player's own self-play (``python -m regressors.scenarios``;
#: held-out log loss 1.1527 against session 45's 1.1557; on its own 200 self-play games 11 of 11
#: judged calibration cells within 0.05; docs/sessions.md "Session 55"). ``scenarios_s45.json``
#: (session 45's rows) is the default of sessions 53-55; ``regressors.scenarios.DEFAULT_PATH``
#: holds those of session 16's rows, the default before session 53.
SCENARIOS_FILE = Path(__file__).resolve().parents[2] / "regressors" / "models" / "scenarios_s55.json"


def hazard_path(hazard_file: str | None, *, own_estimators: bool, table: str) -> Path | None:
    """The hazard file an agent with these options plays over its estimators, None for the
    estimators' own: ``hazard_file`` None is :data:`HAZARD_FILE` over the shipped estimators at
    the mixed table; :data:`HAZARD_ESTIMATORS` is the estimators' own."""
    if hazard_file is None:
        return HAZARD_FILE if not own_estimators and table == "mixed" else None
    return None if hazard_file == HAZARD_ESTIMATORS else Path(hazard_file)


def default_estimators() -> Estimators:
    """The estimators the default player plays: the shipped ones with :data:`HAZARD_FILE`'s hazard."""
    from regressors.estimators import Estimators
    from regressors.hazard import HazardModel

    return Estimators.default().with_hazard(HazardModel.load(HAZARD_FILE))


def table_dirs(table: str) -> dict[str, Path]:
    """The folders of the tables' estimators that a ``table`` choice may play with, by name."""
    return {name: TABLES_DIR / name for name in TABLE_OPPONENTS if table in ("auto", name)}


def uses_discard_net(tie: float, tie_by: str, far_by: str) -> bool:
    """Whether an MDP player with these options reads cnn-bot's discard net: to order its
    near-ties (``tie > 0``, ``tie_by=cnn``) or to discard out of its range (``far_by=cnn``)."""
    return (float(tie) > 0.0 and tie_by == "cnn") or far_by == "cnn"


def _kind(name: str) -> int:
    return mjai_to_kind(name)


def call_code(action: Event) -> int:
    """``search.hand_graph`` meld code of a chi/pon action (pon ``k``, chi ``34 + lowest``)."""
    kinds = [_kind(action["pai"])] + [_kind(n) for n in action["consumed"]]
    if action["type"] == "pon":
        return kinds[0]
    return CHI_CODE + min(kinds)


def _tie_break(action: Event) -> float:
    """Among equal kinds keep red fives and prefer tsumogiri (hides nothing)."""
    if action["type"] != "dahai":
        return 0.0
    return (-1e-9 if action["pai"].endswith("r") else 0.0) + (1e-10 if action.get("tsumogiri") else 0.0)


def _psm_solver(g: HandGraph, params, *, drawn: int | None = None, riichi: bool = False):
    """The PSM root solve of a decision (Method 1, Eq. 16) as a function of ``track``: with
    it the endings of the root's actions too, without it the values alone (the same values)."""
    return lambda track: solve_psm(g, params, drawn=drawn, riichi=riichi, root_only=True, track=track)


def _later_endings(psm, keys: list, endings: list, tracked: bool):
    """None when ``endings`` are complete (a tracked or Method 2 decision), else the function
    that solves again with tracking and fills each action's endings by its ``keys``."""
    if psm is None or tracked:
        return None

    def solve() -> list[np.ndarray | None]:
        probs = psm(True).probs
        return [probs.get(k) if k is not None else e for k, e in zip(keys, endings)]
    return solve


class MdpAgent(Agent):
    """Kurita & Hoki's greedy expected-rank player (Method 1 / PSM at every shanten <= 3)."""

    name = "mdp"

    def __init__(self, seed: int | None = None, *, estimators=None, hanchan: bool = False,
                 fold: bool = True, model: TableModel | None = None, call_states: int = CALL_STATES,
                 call_m: int = CALL_M, kans: bool = True, tie: float = TIE, tie_by: str = TIE_BY,
                 tie_shanten: int = TIE_SHANTEN, tie_max: int | None = None, far_by: str = FAR_BY, far_fold: str = FAR_FOLD,
                 d3: int = D3, states2: int = STATES2,
                 d0: int = D0, d1: int = D1, m1: int = M1, far: int = MAX_SHANTEN,
                 method2: bool = METHOD2, scenarios=None, est_dir: str | None = None,
                 scenarios_file: str | None = None, m2_from: int = METHOD2_SHANTEN[0],
                 scenarios1_file: str | None = None, riichi_danger: float = 1.0, hazard_scale: float = 1.0, tie_net: str | None = None, split_fold: bool = False,
                 call_bonus: float = 0.0, riichi_bonus: float = 0.0, tie_soft: float = 0.0, tie_views: int = 1,
                 deal_in: str = DEAL_IN, deal_in_file: str | None = None, table: str = TABLE,
                 rank_file: str = str(RANK_FILE), hazard_file: str | None = None, **switches: bool) -> None:
        """``model`` (or its fields as keywords, e.g. ``hazard=False``) says how the MDPs
        model the table (:class:`abstractions.situation.TableModel`; every fix on by default).
        ``call_states``: the state budget of a call decision's graph; ``call_m``: the calls
        it explores (the one on offer included); ``kans``: value the kans on offer (else
        never kan: the first player); ``tie``: discards within this much expected rank of
        the best are told apart (:data:`TIE`), at ``tie_shanten`` or more shanten (and at most
        ``tie_max``; None: no bound), by
        ``tie_by`` (:data:`TIE_ORDERS`: cnn-bot's discard net or tile efficiency); ``far_by``:
        what discards at ``far`` (:data:`MAX_SHANTEN`) or more shanten (:data:`FAR_ORDERS`), a
        range where the efficiency agent plays every other move; ``far_fold``: how a hand in that
        range folds where the efficiency agent folds (:data:`FAR_FOLDS`); ``d3``: ``d`` of a 3-shanten
        root's own-turn graph, ``states2``: the state budget of a 2-shanten root's (:data:`D3`,
        :data:`STATES2`); ``d0``, ``d1``: ``d`` of a tenpai and of a 1-shanten root's own-turn
        graph, ``m1``: the calls of the 1-shanten one (:data:`D0`, :data:`D1`, :data:`M1`);
        ``method2``: value the decisions at :data:`METHOD2_SHANTEN` by Method 2 with ``scenarios`` (a :class:`regressors.scenarios.ScenarioModel`, by default
        that of :data:`SCENARIOS_FILE` or ``scenarios_file``, loaded with the agent); ``m2_from``: Method 2's
        first shanten (:data:`M2_FROM`; at 1 shanten with the regressions of ``scenarios1_file``,
        by default ``regressors.scenarios.SHANTEN1_PATH``); ``riichi_danger``: the deal-in
        chances into an opponent in riichi, times this (``abstractions.situation.build_situation``;
        1: the estimators'); ``hazard_scale``: another's win that many times as likely in every
        interval (``abstractions.situation.scaled_hazards``; 1: as fitted); ``deal_in``: where the opponents' ron chances come from
        (:data:`DEAL_IN_SOURCES`; ``cnn``: the CNN estimators of ``deal_in_file``, by default
        :data:`DEAL_IN_CNN`, ``abstractions.situation.with_ron_model``); ``est_dir``: the folder of the estimators'
        model files (``regressors.estimators.FILES``) when ``estimators`` is not given (default:
        the shipped ``regressors/models``); ``table``: the estimators of the table the game is
        played at (:data:`TABLE_CHOICES`; ``estimators`` or ``est_dir`` given: those, always);
        ``rank_file``: Eq. 1's final-rank model (:data:`RANK_FILE`; a ``final_rank`` or a
        ``rank_sim`` file, :func:`regressors.estimators.load_rank_model`; ``estimators``: the
        estimators' own logistic regression); ``hazard_file``: a hazard file
        (``regressors.hazard``) in place of the estimators' (:func:`hazard_path`: by default
        :data:`HAZARD_FILE` over the shipped estimators at the mixed table; :data:`HAZARD_S51`:
        session 51's refit; :data:`HAZARD_ESTIMATORS`: the estimators' own; a file with
        ``table=mixed`` only);
        ``tie_net``: the folder of the discard net that
        orders near-ties and far discards (default :data:`TIE_NET`); ``split_fold``: PSM's
        predicted endings show each planned fold as that fold ends (lose, another's win, noten;
        ``MDPParams.split_fold``) instead of as ``fold``, the choices unchanged
        (``player.calibration`` compares them with what happened); ``call_bonus``: expected rank
        added to every chi / pon at the choice (:data:`CALL_BONUS_RANGE`; the values shown stay
        the MDP's), ``riichi_bonus``: the same for a riichi declaration; both to measure whether the
        thresholds are mis-set (docs/sessions.md "Session 48": either way even or worse);
        ``tie_soft``: with the net ordering the near-ties, each is scored by its value plus
        ``tie_soft`` times the log of the net's probability of it (:data:`TIE_SOFT_RANGE`; 0: the
        net's likeliest): an unsure net leaves the values' order, a sure one overrides it;
        ``tie_views``: the net's probabilities averaged over this many orders of the three suits
        (1-6, ``cnn.policy.suit_views``; 1: the net as it reads the table)."""
        super().__init__()  # deterministic: ``seed`` is accepted for a uniform registry
        if table not in TABLE_CHOICES:
            raise MahjongError(f"table must be one of {TABLE_CHOICES}, got {table!r}")
        fixed = estimators is not None or est_dir is not None
        if fixed and table != TABLE:
            raise MahjongError(f"table={table} and estimators of their own (est_dir) name two sets of estimators")
        from regressors.estimators import Estimators, load_rank_model

        if estimators is None:
            estimators = Estimators.default() if est_dir is None else Estimators.load(est_dir)
        self.table = "mixed" if fixed else table
        # loaded with the agent: a missing file fails here, not at the first game
        self._tables = {name: Estimators.load(folder) for name, folder in table_dirs(self.table).items()}
        if hazard_file not in (None, HAZARD_ESTIMATORS) and self.table != "mixed":
            raise MahjongError(f"table={table} and hazard_file name two hazards")
        hazard = hazard_path(hazard_file, own_estimators=fixed, table=self.table)
        if hazard is not None:
            from regressors.hazard import HazardModel

            estimators = estimators.with_hazard(HazardModel.load(hazard))
        if rank_file != RANK_ESTIMATORS:
            rank_model = load_rank_model(rank_file)
            estimators = estimators.with_final_rank(rank_model)
            self._tables = {name: e.with_final_rank(rank_model) for name, e in self._tables.items()}
        self.est = self._mixed = estimators
        self.hanchan = bool(hanchan)
        self.fold = bool(fold)
        self.split_fold = bool(split_fold)
        if int(call_states) < 1 or int(call_m) < 1:
            raise MahjongError(f"call_states and call_m must be >= 1, got {call_states}, {call_m}")
        self.call_states = int(call_states)
        self.call_m = int(call_m)
        self.kans = bool(kans)
        if not 0.0 <= float(tie) < 1.0:
            raise MahjongError(f"tie must be in [0, 1), got {tie}")
        self.tie = float(tie)
        if tie_by not in TIE_ORDERS or not 0 <= int(tie_shanten) <= 3:
            raise MahjongError(f"tie_by must be one of {TIE_ORDERS} and tie_shanten in 0..3, got {tie_by!r}, {tie_shanten}")
        self.tie_by, self.tie_shanten = tie_by, int(tie_shanten)
        if tie_max is not None and not self.tie_shanten <= int(tie_max) <= 3:
            raise MahjongError(f"tie_max must be in tie_shanten..3 ({self.tie_shanten}..3), got {tie_max}")
        self.tie_max = None if tie_max is None else int(tie_max)
        if not TIE_SOFT_RANGE[0] <= float(tie_soft) <= TIE_SOFT_RANGE[1]:
            raise MahjongError(f"tie_soft must be in {TIE_SOFT_RANGE}, got {tie_soft}")
        if float(tie_soft) > 0.0 and not (self.tie > 0.0 and tie_by == "cnn"):
            raise MahjongError("tie_soft weighs the net's order of the near-ties: it needs tie > 0 and tie_by=cnn")
        self.tie_soft = float(tie_soft)
        if far_by not in FAR_ORDERS:
            raise MahjongError(f"far_by must be one of {FAR_ORDERS}, got {far_by!r}")
        self.far_by = far_by
        if far_fold not in FAR_FOLDS:
            raise MahjongError(f"far_fold must be one of {FAR_FOLDS}, got {far_fold!r}")
        self.far_fold = far_fold
        self._net, self._tie_note = None, None
        # the net's past turns (cnn.encoders.SeatHistory) by (valuing, seat): the decisions that
        # ``value`` is asked about keep their own, apart from the game's
        self._histories: dict | None = None
        self._valuing = False
        reads_net = uses_discard_net(self.tie, tie_by, far_by)
        if (tie_net is not None or int(tie_views) != 1) and not reads_net:
            raise MahjongError("tie_net and tie_views are read only with tie > 0 and tie_by=cnn, or far_by=cnn")
        if reads_net:  # loaded with the agent: a missing file fails here
            from cnn.policy import CnnPolicy, load_nets

            net_dir = TIE_NET if tie_net is None else Path(tie_net)
            self._net, self._histories = CnnPolicy(load_nets(net_dir, tasks=("discard",)), views=int(tie_views)), {}
        if not 3 <= int(d3) <= 6 or int(states2) < 1:
            raise MahjongError(f"d3 must be in 3..6 and states2 >= 1, got {d3}, {states2}")
        self.d3, self.states2 = int(d3), int(states2)
        if not (D0 <= int(d0) <= 5 and D1 <= int(d1) <= 5 and M1 <= int(m1) <= 3):
            raise MahjongError(f"d0 must be in {D0}..5, d1 in {D1}..5 and m1 in {M1}..3, got {d0}, {d1}, {m1}")
        self.d0, self.d1, self.m1 = int(d0), int(d1), int(m1)
        if not FAR_RANGE[0] <= int(far) <= FAR_RANGE[1]:
            raise MahjongError(f"far must be in {FAR_RANGE[0]}..{FAR_RANGE[1]}, got {far}")
        self.far = int(far)
        self.method2 = bool(method2)
        if int(m2_from) not in M2_FROM:
            raise MahjongError(f"m2_from must be one of {M2_FROM}, got {m2_from}")
        self.m2_from = int(m2_from)
        self._scenarios1 = None
        if self.method2:  # built with the agent: a missing file fails here
            from regressors.scenarios import SHANTEN1_PATH, ScenarioModel

            if scenarios is None:
                scenarios = ScenarioModel.load(SCENARIOS_FILE if scenarios_file is None else scenarios_file)
            if self.m2_from == 1:
                self._scenarios1 = ScenarioModel.load(SHANTEN1_PATH if scenarios1_file is None else scenarios1_file)
        self._scenarios = scenarios
        self.riichi_danger = checked_riichi_danger(riichi_danger)  # a bad value fails here, not in play
        self.hazard_scale = checked_hazard_scale(hazard_scale)
        for name, b in (("call_bonus", call_bonus), ("riichi_bonus", riichi_bonus)):
            if not CALL_BONUS_RANGE[0] <= float(b) <= CALL_BONUS_RANGE[1]:
                raise MahjongError(f"{name} must be in {CALL_BONUS_RANGE}, got {b}")
        self._bonus = {"chi": float(call_bonus), "pon": float(call_bonus), "reach": float(riichi_bonus)}
        if deal_in not in DEAL_IN_SOURCES:
            raise MahjongError(f"deal_in must be one of {DEAL_IN_SOURCES}, got {deal_in!r}")
        self._ron_model = None
        if deal_in == "cnn":  # loaded with the agent: a missing file fails here
            from cnn.estimators import CnnEstimators

            self._ron_model = CnnEstimators.load(DEAL_IN_CNN if deal_in_file is None else deal_in_file)
        unknown = set(switches) - set(TableModel.__dataclass_fields__)
        if unknown:
            raise MahjongError(f"unknown mdp option(s) {sorted(unknown)}; known: fold, hanchan, call_states, "
                               f"call_m, kans, tie, tie_by, tie_shanten, tie_max, far_by, far_fold, far, d3, states2, d0, d1, m1, method2, est_dir, tie_net, "
                               f"scenarios_file, m2_from, scenarios1_file, riichi_danger, hazard_scale, split_fold, call_bonus, riichi_bonus, tie_soft, tie_views, deal_in, deal_in_file, table, rank_file, hazard_file, "
                               f"{', '.join(TableModel.__dataclass_fields__)}")
        base = model or TableModel()
        self.model = TableModel(**{**base.__dict__, **{k: bool(v) for k, v in switches.items()}})
        for option in (o for o in HAZARD_FITS if getattr(self.model, o)):  # a missing fit fails here, not in play
            for e in (self._mixed, *self._tables.values()):
                check_hazard_fits(e.hazard, [option])
        if self.model.ron_wall and (self.model.ron_by_discarder or not self.model.ron_share):
            raise MahjongError("ron_wall splits ron_share's one share by the wall: it needs ron_share=1 "
                               "and ron_by_discarder=0")
        self.state = TableState(0)
        self.fallback = EfficiencyAgent()
        self.stats: Counter = Counter()
        self._lazy_endings = None
        self.last_values: list[tuple[Event, float | None]] = []
        self.last_info: dict = {}
        self.last_endings: list[np.ndarray | None] = []
        self.last_situation: Situation | None = None
        self.last_choice: Event | None = None
        self._table: RankTable | None = None
        self._riichi_discard: int | None = None
        self._pick_table(["", "", "", ""])

    # --- following the table -----------------------------------------------------------

    def start_game(self, seat: int) -> None:
        super().start_game(seat)
        self.state = TableState(seat)
        self.fallback.start_game(seat)
        self._riichi_discard = None
        self._pick_table(["", "", "", ""])  # until start_game names the players
        if self._histories is not None:
            self._histories.clear()

    def observe(self, event: Event) -> None:
        self.state.update(event)
        self.fallback.observe(event)
        if self._histories is not None and event["type"] in ("tsumo", "chi", "pon") and event.get("actor") == self.seat:
            self._history(self.seat).record(self.state)  # the net reads the seat's past discard turns
        if event["type"] == "start_kyoku":
            self._riichi_discard = None
        elif event["type"] == "start_game":
            self._pick_table(self.state.names)

    def _pick_table(self, names: list[str]) -> None:
        """The estimators of this game (``table``): a named table's, or under ``auto`` those
        of the table whose agent name the three opponents share (options after ``:`` aside:
        ``mdp:tie=0`` is an ``mdp``), else the mixture's."""
        others = {n.split(":")[0] for s, n in enumerate(names) if s != self.seat}
        if self.table in self._tables:
            self.table_now = self.table
        elif self.table == "auto" and len(others) == 1 and others <= self._tables.keys():
            self.table_now = others.pop()
        else:
            self.table_now = "mixed"
        self.est = self._tables.get(self.table_now, self._mixed)
        self._table = None  # the rank table of the previous estimators

    # --- explanation of the last decision ------------------------------------------------

    @property
    def last_endings(self) -> list[np.ndarray | None]:
        """The PSM's predicted endings (``OUTCOMES``) of each legal action of the last decision,
        None where not valued. A Method 1 decision in play solves PSM for the values alone (the
        choice needs nothing more; tracking the policy's endings costs about a fifth of its
        time) and leaves them to be solved for here, on their first read, from the same graph and
        parameters: the same values, so the same probabilities as a tracked solve."""
        self._solve_endings()
        return self._last_endings

    @last_endings.setter
    def last_endings(self, endings: list[np.ndarray | None]) -> None:
        self._last_endings, self._lazy_endings = endings, None

    @property
    def last_info(self) -> dict:
        """The last decision's inputs; ``outcomes``: the chosen action's endings."""
        self._solve_endings()
        return self._last_info

    @last_info.setter
    def last_info(self, info: dict) -> None:
        self._last_info = info

    def _solve_endings(self) -> None:
        lazy, self._lazy_endings = self._lazy_endings, None
        if lazy is not None:
            self._last_endings = lazy()
            self._note_outcomes()

    def _note_outcomes(self) -> None:
        probs = next((e for (a, _), e in zip(self.last_values, self._last_endings) if a is self.last_choice), None)
        if probs is not None:
            self._last_info["outcomes"] = {o: float(x) for o, x in zip(OUTCOMES, probs)}

    # --- decisions ---------------------------------------------------------------------

    def act(self, legal: list[Event]) -> Event:
        self.stats["decisions"] += 1
        if self.table_now != "mixed":
            self.stats[f"table_{self.table_now}"] += 1  # shown beside the methods in the reports
        self.last_values, self.last_info, self.last_endings = [], {}, []
        forced = self._forced(legal)
        if forced is not None:
            self.stats["forced"] += 1
            self.last_values = [(a, None) for a in legal]
            self.last_info = {"rule": "forced (a win taken unvalued, Eq. 3; one action; riichi; no call)"}
            return forced
        try:
            if any(a["type"] in ("dahai", "reach") for a in legal):
                return self._own_turn(legal)
            return self._respond(legal)
        except MahjongError as err:  # a graph that cannot be built: counted, the rule-based move
            self.last_info["fallback"] = str(err)
            return self._fallback(legal, "error_fallback")

    def _forced(self, legal: list[Event]) -> Event | None:
        """The move when there is nothing to value, else None: a win on offer (Eq. 3), the one
        legal action, a riichi hand's draw when no closed kan is on offer (or kans are off),
        no chi, pon or open kan on offer at an opponent's discard."""
        win = find(legal, "hora")
        if win is not None:
            return win
        if len(legal) == 1:
            return legal[0]
        kans = KANS if self.kans else ()
        if self.state.riichi[self.seat]:
            if self.kans and find(legal, "ankan") is not None:
                return None  # valued against the draw's discard, the hand locked
            return next((a for a in legal if a["type"] == "dahai"), None) or find(legal, "none") or legal[0]
        own = any(a["type"] in ("dahai", "reach") for a in legal)
        passing = find(legal, "none")
        if not own and (passing is None or not any(a["type"] in ("chi", "pon") + kans for a in legal)):
            return passing or legal[0]
        return None

    def method(self, state: TableState, legal: list[Event]) -> str:
        """How the player decides at ``state`` (a seat's table state) among ``legal``
        (:data:`METHODS`, but for errors): ``forced``, ``rule_based``, ``method1`` or ``method2``. The
        discard right after a riichi declaration counts as forced (it was planned with it)."""
        saved = self.state, self.seat
        self.state, self.seat = state, int(state.seat)
        try:
            if self._forced(legal) is not None or (state.reach_declared[self.seat] and not state.riichi[self.seat]):
                return "forced"
            sh = shanten(np.asarray(state.hand, np.uint8))
            return "rule_based" if sh >= self.far else "method2" if self._uses_method2(sh) else "method1"
        finally:
            self.state, self.seat = saved

    def _fallback(self, legal: list[Event], method: str) -> Event:
        self.stats[method] += 1
        choice = self.fallback.act(legal)
        self.last_values = [(a, None) for a in legal]
        self.last_info["rule"] = ("rule-based range (efficiency agent)" if method == "rule_based"
                                  else "error: efficiency agent's move")
        return choice

    def _far_discard(self, legal: list[Event]) -> Event:
        """An own turn out of the MDP's range: the efficiency agent's move, or with
        ``far_by=cnn``, when that move is a discard, the discard cnn-bot's net rates likeliest;
        with ``far_fold=fsm``, where the efficiency agent folds, FSM's fold."""
        if self.far_fold == "fsm" and self.fallback.folds():
            return self._fsm_fold(legal)
        choice = self._fallback(legal, "rule_based")
        if self.far_by != "cnn" or choice["type"] != "dahai":
            return choice
        self.last_info["rule"] = "rule-based range (cnn-bot's discard net)"
        return self._net_choice([a for a in legal if a["type"] == "dahai"])

    def _fsm_fold(self, legal: list[Event]) -> Event:
        """The legal discard that FSM's optimal fold throws first: Eq. 12's order of the kinds
        in hand, with this turn's deal-in chances and payoffs (Eqs. 11-13)."""
        p = self._situation().params
        fold = fsm_closed_form(np.asarray(self.state.hand, dtype=np.int64), p.p_lose, p.u_lose, p=p.fsm_p,
                               u_other=p.u_other, u_end=p.u_nw if p.u_end is None else p.u_end, T=max(int(p.T), 1))
        discards = [a for a in legal if a["type"] == "dahai"]
        by_kind = {k: [a for a in discards if _kind(a["pai"]) == k] for k in fold.order}
        first = next(acts for acts in by_kind.values() if acts)  # a kind a call forbids is skipped
        self.stats["rule_based"] += 1
        self.stats["far_fold_fsm"] += 1
        self.last_values = [(a, None) for a in legal]
        self.last_info["rule"] = "rule-based range, folding by FSM's order (Eq. 12)"
        return max(first, key=_tie_break)

    def _situation(self) -> Situation:
        sit = situation_of(self.state, self.est, table=self._table, hanchan=self.hanchan, model=self.model,
                           riichi_danger=self.riichi_danger, ron_model=self._ron_model,
                           hazard_scale=self.hazard_scale)
        self._table = sit.table
        sit.params.fold = self.fold
        sit.params.split_fold = self.split_fold
        return sit

    def _graph(self, sit: Situation, state: TableState, *, calls: int | None = None, d: int | None = None,
               max_states: int | None = None, offered: int | None = None) -> HandGraph:
        """The reduced hand graph of ``state``'s concealed hand under ``sit`` (riichi twins
        while the hand may still declare; ``calls`` caps the revealed mentsu and
        ``max_states`` the size, None keeps the graph's defaults by shanten). ``offered``:
        the kind of the discard on offer, counted among the tiles the graph may take (it
        lies on the table, no longer unseen, and a graph without it holds no call on it).
        In riichi the graph is the hand alone (``d`` = its shanten, no calls): the locked
        solve keeps no exchange."""
        hand = np.asarray(state.hand, dtype=np.uint8)
        pool = np.array(state.unseen, dtype=np.uint8)
        if offered is not None:
            pool[offered] = min(4, int(pool[offered]) + 1)
        if state.riichi[state.seat]:
            return build_graph(hand, pool, d=max(0, shanten(hand)), m=0, horizon=sit.params.T,
                               melds=sit.root_melds, riichi=False)
        m = None if calls is None else min(calls, 4 - len(sit.root_melds))
        return build_graph(hand, pool, d=d, horizon=sit.params.T, melds=sit.root_melds,
                           riichi=sit.params.riichi is not None, m=m, max_states=max_states)

    def _own_turn_opts(self, sh: int) -> dict:
        """Own-turn graph options of a root at ``sh`` shanten (:data:`D0`, :data:`D1`,
        :data:`M1`, :data:`D3`, :data:`STATES2`); at their defaults the graph's own."""
        if sh == 0 and self.d0 != D0:
            return dict(d=self.d0, max_states=DEFAULT_MAX_STATES)
        if sh == 1 and (self.d1, self.m1) != (D1, M1):
            return dict(d=self.d1, calls=self.m1, max_states=DEFAULT_MAX_STATES)
        if sh == 2:
            return dict(max_states=self.states2)
        if sh == 3:
            return dict(d=self.d3, max_states=DEFAULT_MAX_STATES)
        return {}

    def _decision_graph(self, sit: Situation, state: TableState, legal: list[Event],
                        sh: int) -> tuple[HandGraph, int | None, dict]:
        """The graph a decision is valued on, the kind just drawn (own turn; else None) and the
        graph options it was built with: an own turn's by :meth:`_own_turn_opts`, a call decision's with
        :attr:`call_m` calls and :attr:`call_states` states, the discard on offer counted."""
        if any(a["type"] in ("dahai", "reach") for a in legal):
            opts = self._own_turn_opts(sh)
            drawn = None if state.drawn is None else state.drawn >> 2
            return self._graph(sit, state, **opts), drawn, opts
        opts = dict(calls=self.call_m, max_states=self.call_states)
        offered = next(a for a in legal if a["type"] in ("chi", "pon") + KANS)["pai"]
        return self._graph(sit, state, offered=_kind(offered), **opts), None, opts

    def _kan(self, action: Event, sit: Situation, **graph: int) -> tuple[float | None, np.ndarray | None]:
        """Value and endings of a kan at the hand after it (the replacement draw comes next),
        read as the ``pass`` value of the graph rooted at the concealed hand left, the kan
        among its melds, with :func:`abstractions.situation.after_kan`'s parameters (locked
        in riichi): Eq. 17 (Method 2) where that hand is at :data:`METHOD2_SHANTEN`, else
        Eq. 9 (PSM). ``graph``: at a call decision its graph options, so that the values
        compare like with like (on an own turn none: the graph's defaults by the shanten of the
        hand after the kan). None when kans are off, or the hand after the kan is out of the
        MDP's range (counted in ``stats["kan_unvalued"]``)."""
        if not self.kans:
            return None, None
        post = self.state.copy()
        post.update(action)
        sh = shanten(np.asarray(post.hand, dtype=np.uint8))
        if sh >= self.far:
            self.stats["kan_unvalued"] += 1
            return None, None
        ksit = after_kan(sit, post, self.est.kan_win_classes(post) if self.model.kan_dora else None)
        g = self._graph(ksit, post, **graph)
        if self._uses_method2(sh):
            m2 = self._method2(g, ksit, None, sh, state=post)
            return m2.values.get("pass"), m2.probs.get("pass")
        rv = solve_psm(g, ksit.params, riichi=bool(post.riichi[self.seat]), root_only=True)
        return rv.pass_, rv.probs.get("pass")

    def _own_turn(self, legal: list[Event]) -> Event:
        st = self.state
        hand = np.asarray(st.hand, dtype=np.uint8)
        if self._riichi_discard is not None and st.reach_declared[self.seat]:
            planned = [a for a in legal if a["type"] == "dahai" and _kind(a["pai"]) == self._riichi_discard]
            self._riichi_discard = None
            if planned:
                self.stats["forced"] += 1
                self.last_values = [(a, None) for a in legal]
                self.last_info = {"rule": "riichi discard planned at the reach decision"}
                return max(planned, key=_tie_break)
        sh = shanten(hand)
        if sh >= self.far:
            self.last_info = {"shanten": sh}
            return self._far_discard(legal)
        sit = self._situation()
        g, drawn, _ = self._decision_graph(sit, st, legal, sh)
        m2 = self._method2(g, sit, drawn, sh) if self._uses_method2(sh) else None
        psm = None
        if m2 is None:
            psm = _psm_solver(g, sit.params, drawn=drawn, riichi=bool(st.riichi[self.seat]))
            rv = psm(self._valuing)
            discards, probs = rv.discards, rv.probs
        else:  # no riichi at 2-3 shanten
            rv, discards, probs = None, m2.values, m2.probs
        best_riichi = max(rv.riichi.items(), key=lambda kv: kv[1]) if rv is not None and rv.riichi else None
        values: list[tuple[Event, float | None]] = []
        endings: list[np.ndarray | None] = []
        keys: list = []  # each action's key among the solve's endings (None: a kan's own solve, or none)
        for a in legal:
            t = a["type"]
            v, e, key = None, None, None
            if t == "dahai":
                key = _kind(a["pai"])
                v, e = discards.get(key), probs.get(key)
            elif t == "reach" and best_riichi is not None:
                key = ("riichi", best_riichi[0])
                v, e = best_riichi[1], probs.get(key)
            elif t == "ryukyoku":
                v = sit.table.u_abort
            elif t in KANS:
                v, e = self._kan(a, sit)
            values.append((a, v))
            endings.append(e)
            keys.append(key)
        choice = self._argmax(values, sh)
        if choice["type"] == "reach":
            self._riichi_discard = best_riichi[0]
        self._record(values, endings, sit, g, sh, choice, m2, _later_endings(psm, keys, endings, self._valuing))
        return choice

    def _respond(self, legal: list[Event]) -> Event:
        st = self.state  # a pass and a call on offer: not forced
        sh = shanten(np.asarray(st.hand, dtype=np.uint8))
        if sh >= self.far:
            self.last_info = {"shanten": sh}
            return self._fallback(legal, "rule_based")
        sit = self._situation()
        g, _, graph = self._decision_graph(sit, st, legal, sh)
        m2 = self._method2(g, sit, None, sh) if self._uses_method2(sh) else None
        psm = None
        if m2 is None:
            psm = _psm_solver(g, sit.params)
            rv = psm(self._valuing)
            pass_, call_q, probs = rv.pass_, rv.calls, rv.probs
        else:
            pass_ = m2.values.get("pass")
            call_q = {a[1:]: v for a, v in m2.values.items() if isinstance(a, tuple)}
            probs = m2.probs
        values: list[tuple[Event, float | None]] = []
        endings: list[np.ndarray | None] = []
        keys: list = []
        for a in legal:
            v, e, key = None, None, None
            if a["type"] == "none":
                key = "pass"
                v, e = pass_, probs.get(key)
            elif a["type"] in ("chi", "pon"):
                u, code = _kind(a["pai"]), call_code(a)
                opts = {k: q for k, q in call_q.items() if k[0] == u and k[1] == code}
                if opts:
                    k = max(opts, key=opts.get)
                    key = ("call",) + k
                    v, e = opts[k], probs.get(key)
            elif a["type"] in KANS:
                v, e = self._kan(a, sit, **graph)
            values.append((a, v))
            endings.append(e)
            keys.append(key)
        choice = self._argmax(values)
        self._record(values, endings, sit, g, sh, choice, m2, _later_endings(psm, keys, endings, self._valuing))
        return choice

    # --- Method 2 ----------------------------------------------------------------------

    def _uses_method2(self, sh: int) -> bool:
        return self.method2 and self.m2_from <= sh < self.far and not self.state.riichi[self.seat]

    def scenarios(self, sh: int):
        """Eq. 18's regressions (:class:`regressors.scenarios.ScenarioModel`) of a hand at ``sh``
        shanten (1: the 1-shanten ones of ``m2_from=1``); ``MahjongError`` when Method 2 is off
        and none was given."""
        model = self._scenarios1 if sh < METHOD2_SHANTEN[0] else self._scenarios
        if model is None:
            raise MahjongError("Method 2 is off (or not at 1 shanten) and no scenario model was given")
        return model

    def table_view(self, sit: Situation, state: TableState | None = None) -> method2.TableView:
        """The table's features of Eq. 18 at this decision (``state``: the table after an
        action of ours, such as a kan; by default the decision's)."""
        st, me = self.state if state is None else state, self.seat
        opp = [(me + k) % 4 for k in (1, 2, 3)]
        pt = np.asarray(sit.estimates.p_tenpai, dtype=np.float64)
        return method2.TableView(n_riichi=sum(bool(st.riichi[j]) for j in opp),
                                 sum_pt=float(sum(pt[j] for j in opp if not st.riichi[j])),
                                 n_dahai=len(st.discards[me]), tiles_left=int(st.tiles_left))

    def _method2(self, g: HandGraph, sit: Situation, drawn: int | None, sh: int, *,
                 model: bool = True, state: TableState | None = None) -> method2.Method2Values:
        """Eq. 17 at every root action of ``g``, a hand at ``sh`` shanten (``model=False``: features and payoffs only;
        ``state``: the table the graph's root stands at, by default the decision's). The
        endings gain the PSM's ``fold`` column (0) so that they read as Method 1's."""
        fallback = float(sit.table.u_win(np.array([method2.FALLBACK_WIN_POINTS]), False)[0])
        m2 = method2.evaluate(g, sit.params, self.table_view(sit, state), self.scenarios(sh) if model else None,
                              drawn=drawn, u_win_fallback=fallback)
        self.stats["win_payoff_fallback"] += m2.win_fallbacks
        m2.probs = {a: np.append(p, 0.0) for a, p in m2.probs.items()}
        return m2

    def scenario_features(self, state: TableState, legal: list[Event]) -> dict | None:
        """Method 2's features and payoffs of every root action of a recorded decision (the
        keys of :class:`abstractions.method2.Method2Values`) at ``m2_from``-3 shanten, None elsewhere:
        the rows of Eq. 18's regressions (``player.scenario_data``). No model is needed."""
        saved = self.state, self.seat, self.stats.copy()
        self.state, self.seat = state, int(state.seat)
        try:
            if self._forced(legal) is not None or state.reach_declared[self.seat]:
                return None
            sh = shanten(np.asarray(state.hand, np.uint8))
            if not self.m2_from <= sh <= METHOD2_SHANTEN[1]:
                return None
            sit = self._situation()
            g, drawn, _ = self._decision_graph(sit, state, legal, sh)
            m2 = self._method2(g, sit, drawn, sh, model=False)
            return {"features": m2.features, "payoffs": m2.payoffs}
        finally:
            self.state, self.seat, self.stats = saved

    def remember(self, state: TableState, legal: list[Event]) -> None:
        """Keep a seat's own turn (``state``, e.g. an earlier decision of a record) among the
        past turns that cnn-bot's discard net reads when it orders the near-ties of
        :meth:`value` (``tie_by=cnn``); nothing for other decisions or without the net.
        :meth:`value` keeps each own turn it is asked about: a seat's decisions valued in
        order (``player.review``) need nothing more, one valued alone needs its hand's
        earlier own turns remembered first (``player.analyze`` does it)."""
        if self._histories is None or not any(a["type"] in ("dahai", "reach") for a in legal):
            return
        saved, self._valuing = self._valuing, True
        try:
            self._history(int(state.seat)).record(state)
        finally:
            self._valuing = saved

    def value(self, state: TableState, legal: list[Event]) -> list[tuple[Event, float, np.ndarray]] | None:
        """Every legal action of a recorded decision with its value and the PSM's predicted
        endings (``OUTCOMES``), as :meth:`act` would compute them at ``state`` (a seat's
        table state, e.g. ``game.decisions.Decision.state``); None where the MDP does not
        value the decision (:meth:`method` is not ``method1`` or ``method2``). Leaves the
        agent's game untouched. With ``tie_by=cnn`` the net reads the seat's earlier own turns
        of the hand among those valued or remembered before (:meth:`remember`)."""
        own = any(a["type"] in ("dahai", "reach") for a in legal)
        self.remember(state, legal)
        saved = self.state, self._riichi_discard, self.seat, self.stats.copy()
        self._valuing = True  # the net's past turns of valued decisions are kept apart from the game's
        try:
            if self.method(state, legal) not in ("method1", "method2"):
                return None
            self.state, self._riichi_discard, self.seat = state, None, int(state.seat)
            self.last_values, self.last_endings = [], []
            self._own_turn(legal) if own else self._respond(legal)
            return [(a, v, e) for (a, v), e in zip(self.last_values, self.last_endings)]
        finally:  # a valuation is not a decision of the agent's game: its counts stay
            self.state, self._riichi_discard, self.seat, self.stats = saved
            self._valuing = False

    def _argmax(self, values: list[tuple[Event, float | None]], shanten: int = 0) -> Event:
        """The best-valued action. When it is a discard from a hand of ``shanten`` >=
        ``tie_shanten`` (and <= ``tie_max``), the discards within ``tie`` of it are told apart by ``tie_by`` (the
        net or tile efficiency): the reduced graphs of far hands leave out more than such
        differences."""
        best, best_v = None, NEG
        self._tie_note = None
        for a, v in values:
            if v is None or v != v:
                continue
            score = v + _tie_break(a) + self._bonus.get(a["type"], 0.0)
            if best is None or score > best_v:
                best, best_v = a, score
        if best is None:
            raise MahjongError("no legal action could be valued")
        if best["type"] != "dahai" or self.tie <= 0.0 or shanten < self.tie_shanten \
                or (self.tie_max is not None and shanten > self.tie_max):
            return best
        pairs = [(a, v) for a, v in values if a["type"] == "dahai" and v is not None and v >= best_v - self.tie]
        near = [a for a, _ in pairs]
        if len(near) < 2:
            return best
        self.stats["tie_broken"] += 1
        self._tie_note = f"{len(near)} discards within {self.tie:g} of the best, ordered by {self.tie_by}"
        if self.tie_by == "cnn":
            if self.tie_soft > 0.0:
                self._tie_note += f" weighed by {self.tie_soft:g} a unit of its log-probability"
            return self._net_choice(near, [v for _, v in pairs])
        keys = efficiency_keys(self.state, near, self.fallback.eff)
        return near[max(range(len(near)), key=keys.__getitem__)]

    def _history(self, seat: int):
        from cnn.encoders import SeatHistory

        return self._histories.setdefault((self._valuing, seat), SeatHistory())

    def _net_choice(self, near: list[Event], values: list[float] | None = None) -> Event:
        """The discard of ``near`` that cnn-bot's discard net rates likeliest; with ``values``
        (theirs) and ``tie_soft``, the best by value plus ``tie_soft`` times the log of the net's
        probability."""
        from cnn.features import feature_planes

        net = self._net
        features = feature_planes(self.state, near, safety=net.safety) if net.features else None
        planes = self._history(self.seat).encode(self.state, discard_decision=True, features=features)
        probs = net.probs("discard", planes)
        if values is None or self.tie_soft <= 0.0:
            return max(near, key=lambda a: float(probs[_kind(a["pai"])]) + _tie_break(a))
        score = [v + self.tie_soft * math.log(max(float(probs[_kind(a["pai"])]), TIE_SOFT_FLOOR)) + _tie_break(a)
                 for a, v in zip(near, values)]
        return near[max(range(len(near)), key=score.__getitem__)]

    def _record(self, values, endings, sit: Situation, g, sh: int, choice: Event,
                m2: method2.Method2Values | None = None, later=None) -> None:
        """Keep the decision for :meth:`explain`; ``later``: a function that gives the
        endings of a solve made without them (:attr:`last_endings`)."""
        self.stats["method1" if m2 is None else "method2"] += 1
        self.last_values = values
        self.last_endings = endings
        self.last_situation = sit
        self.last_choice = choice
        p = sit.params
        rule = "PSM (Method 1, Eq. 16)" if m2 is None else "WSM, TSM, FSM and Eq. 18's regressions (Method 2, Eq. 17)"
        self.last_info = {"rule": rule, "shanten": int(sh), "T": int(p.T),
                          "T_max": int(sit.t_max), "states": int(g.n_states),
                          "p_other": float(np.mean(p.p_other)),
                          "u_other": float(p.u_other), "u_tw": float(p.u_tw), "u_nw": float(p.u_nw)}
        if self._tie_note is not None:
            self.last_info["tie"] = self._tie_note
        if any(self._bonus.values()):  # the choice is not the values' argmax alone
            self.last_info["bonus"] = f"call {self._bonus['pon']:+g}, riichi {self._bonus['reach']:+g} at the choice"
        self._note_outcomes()
        self._lazy_endings = later

    # --- explanation -------------------------------------------------------------------

    def explain(self) -> str:
        """The last decision: each legal action with its value (minus the expected final
        rank), best first, and the decision's inputs."""
        rows = sorted(self.last_values, key=lambda av: -math.inf if av[1] is None else -av[1])
        lines = [", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in self.last_info.items() if k != "outcomes")]
        for a, v in rows:
            desc = " ".join(str(a[k]) for k in ("type", "pai", "consumed") if k in a)
            lines.append(f"  {desc:30s} {'-' if v is None else f'{v:.4f} (E[rank] {-v:.3f})'}")
        if "outcomes" in self.last_info:
            lines.append("  chosen action's endings: " + ", ".join(
                f"{o} {x:.2f}" for o, x in self.last_info["outcomes"].items()))
        return "\n".join(lines)
