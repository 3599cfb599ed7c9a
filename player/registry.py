"""The registry of agents: the one place where a new player plugs in by name.

``make_agent("efficiency", seed=3)`` builds an agent; command-line tools list ``AGENTS``.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from game.errors import MahjongError
from player.agents.base import Agent


def _random(**kwargs: Any) -> Agent:
    from player.agents.random_agent import RandomAgent
    return RandomAgent(**kwargs)


def _tsumogiri(**kwargs: Any) -> Agent:
    from player.agents.tsumogiri import TsumogiriAgent
    return TsumogiriAgent(**kwargs)


def _efficiency(**kwargs: Any) -> Agent:
    from player.agents.efficiency import EfficiencyAgent
    return EfficiencyAgent(**kwargs)


def _cnn_bot(**kwargs: Any) -> Agent:
    from player.agents.cnn_bot import CnnBot
    return CnnBot(**kwargs)


def _mdp(**kwargs: Any) -> Agent:
    from player.agents.mdp import MdpAgent
    return MdpAgent(**kwargs)


def _hybrid(**kwargs: Any) -> Agent:
    from player.agents.hybrid import HybridAgent
    return HybridAgent(**kwargs)


# name -> factory(**kwargs) -> Agent. Factories import lazily so that a heavy agent
# (torch, numba) costs nothing until it is asked for.
AGENTS: dict[str, Callable[..., Agent]] = {
    "random": _random,
    "tsumogiri": _tsumogiri,
    "efficiency": _efficiency,
    "cnn-bot": _cnn_bot,
    "mdp": _mdp,
    "hybrid": _hybrid,
}


def _mdp_models(opts: dict[str, Any]) -> list[Path]:
    from player.agents.mdp import (DEAL_IN, DEAL_IN_CNN, FAR_BY, METHOD2, RANK_ESTIMATORS, RANK_FILE, SCENARIOS_FILE,
                                   TABLE, TIE, TIE_BY, TIE_NET, hazard_path, table_dirs, uses_discard_net)
    from regressors.estimators import DEFAULT_DIR, FILES
    from regressors.scenarios import SHANTEN1_PATH

    folder = Path(str(opts["est_dir"])) if "est_dir" in opts else DEFAULT_DIR
    files = [folder / fname for fname, _ in FILES.values()]
    table = str(opts.get("table", TABLE))
    if "est_dir" not in opts:  # the tables' own estimators, loaded with the agent
        files += [table_dir / fname for table_dir in table_dirs(table).values()
                  for fname, _ in FILES.values()]
    if uses_discard_net(opts.get("tie", TIE), opts.get("tie_by", TIE_BY), opts.get("far_by", FAR_BY)):
        from cnn.features import FEATURE_FILES, FEATURE_MODELS
        # the net that orders near-ties or far discards, and the models of its safety planes
        net_dir = Path(str(opts["tie_net"])) if "tie_net" in opts else TIE_NET
        files += [net_dir / "discard.pt", *(FEATURE_MODELS / f for f in FEATURE_FILES)]
    if opts.get("deal_in", DEAL_IN) == "cnn":
        files.append(Path(str(opts["deal_in_file"])) if "deal_in_file" in opts else DEAL_IN_CNN)
    hazard = hazard_path(None if "hazard_file" not in opts else str(opts["hazard_file"]),
                         own_estimators="est_dir" in opts, table=table)
    if hazard is not None:
        files.append(hazard)
    rank_file = str(opts.get("rank_file", RANK_FILE))
    if rank_file != RANK_ESTIMATORS:
        files.append(Path(rank_file))
    if not opts.get("method2", METHOD2):
        return files
    files.append(Path(str(opts["scenarios_file"])) if "scenarios_file" in opts else SCENARIOS_FILE)
    if opts.get("m2_from") == 1:
        files.append(Path(str(opts["scenarios1_file"])) if "scenarios1_file" in opts else SHANTEN1_PATH)
    return files


def _cnn_bot_models(opts: dict[str, Any]) -> list[Path]:
    from cnn.features import FEATURE_FILES, FEATURE_MODELS
    from cnn.policy import DEFAULT_MODELS, TASKS
    folder = Path(str(opts["models_dir"])) if "models_dir" in opts else DEFAULT_MODELS
    return [folder / f"{task}.pt" for task in TASKS] + [FEATURE_MODELS / f for f in FEATURE_FILES]


# name -> the model files an agent of that name loads (given its options). A run that is
# resumed must find them unchanged, or it would mix two players in one result.
MODEL_FILES: dict[str, Callable[[dict[str, Any]], list[Path]]] = {
    "mdp": _mdp_models,
    "cnn-bot": _cnn_bot_models,
    "hybrid": lambda opts: [*model_files(str(opts.get("base", "cnn-bot"))),
                            *model_files(str(opts.get("teacher", "mdp")))],
}


def model_files(spec: str) -> list[Path]:
    """The model files the agent ``spec`` (``NAME[:KEY=VALUE,...]``) loads; [] for one that
    loads none (random, tsumogiri, efficiency)."""
    name, opts = parse_agent_spec(spec)
    files = MODEL_FILES.get(name)
    return files(opts) if files is not None else []


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"mdp:hazard=0,full_horizon=1"`` -> ``("mdp", {"hazard": 0, "full_horizon": 1})``:
    an agent name with constructor options (integers, numbers or words) for ablations."""
    name, _, opts = spec.partition(":")
    kwargs: dict[str, Any] = {}
    for item in filter(None, opts.split(",")):
        key, eq, raw = item.partition("=")
        if not eq or not key.strip():
            raise MahjongError(f"agent option {item!r} of {spec!r} is not KEY=VALUE")
        value: Any = raw.strip()
        for conv in (int, float):
            try:
                value = conv(value)
                break
            except ValueError:
                continue
        kwargs[key.strip()] = value
    return name, kwargs


def make_agent(name: str, **kwargs: Any) -> Agent:
    """A new agent of the registered ``name``; ``kwargs`` go to its constructor.

    ``name`` may carry options, ``"NAME:KEY=VALUE,..."`` (:func:`parse_agent_spec`); an agent
    that does not know an option raises. Raises :class:`MahjongError` naming the known agents
    when ``name`` is unknown.
    """
    name, opts = parse_agent_spec(name)
    kwargs = {**kwargs, **opts}
    factory = AGENTS.get(name)
    if factory is None:
        known = ", ".join(sorted(AGENTS))
        raise MahjongError(f"unknown agent {name!r}; known agents: {known}")
    try:
        return factory(**kwargs)
    except TypeError as err:
        if not opts:
            raise
        raise MahjongError(f"agent {name!r} does not take the options {sorted(opts)}: {err}") from None
