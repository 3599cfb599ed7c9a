"""The four solitary MDPs of Kurita & Hoki (Sec. VI-A): PSM, FSM, WSM, TSM, and their inputs."""
from abstractions._solve import RootValues
from abstractions.fsm import FSMResult, fsm_closed_form, fsm_dp, fsm_stop_values
from abstractions.params import MDPParams, RiichiParams, win_payoffs
from abstractions.psm import solve_psm
from abstractions.tsm import solve_tsm
from abstractions.wsm import solve_wsm

__all__ = ["FSMResult", "MDPParams", "RiichiParams", "RootValues", "fsm_closed_form", "fsm_dp", "fsm_stop_values",
           "solve_psm", "solve_tsm", "solve_wsm", "win_payoffs"]
