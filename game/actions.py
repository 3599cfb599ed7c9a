"""Actions: converting between riichienv ``Action`` objects and mjai action dicts.

The project speaks mjai (Mortal's dialect) everywhere outside the engine adapter, for the
legal actions offered to an agent as well as for the action it picks:

* ``{"type":"dahai","actor":0,"pai":"5mr","tsumogiri":false}``
* ``{"type":"reach","actor":0}`` (the discard is a second decision that follows)
* ``{"type":"chi"|"pon"|"daiminkan","actor":1,"target":0,"pai":"3m","consumed":[...]}``
* ``{"type":"ankan","actor":0,"consumed":[4 names]}``
* ``{"type":"kakan","actor":0,"pai":"5m","consumed":[3 names]}``
* ``{"type":"hora","actor":0,"target":2,"pai":"5m"}`` (``target == actor`` for tsumo)
* ``{"type":"ryukyoku","actor":0}`` (nine terminals), ``{"type":"none"}`` (pass)

riichienv lists one ``Action`` per physical tile, so two copies of ``1p`` give two equal
mjai dahai; :func:`legal_from_engine` merges them and keeps one engine action per distinct
mjai dict. ``consumed`` lists are ordered by 136-id so equal choices compare equal.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from riichienv import Action

from game.errors import IllegalActionError
from game.tiles import id_to_mjai

# riichienv's ActionType as plain ints (int(ActionType.X)); comparing ints is cheap.
DISCARD, CHI, PON, DAIMINKAN, RON, RIICHI, TSUMO, PASS, ANKAN, KAKAN, KYUSHU = range(11)

_NAMES = tuple(id_to_mjai(i) for i in range(136))
_CALL_TYPES = {CHI: "chi", PON: "pon", DAIMINKAN: "daiminkan"}
PASS_ACTION: dict[str, Any] = {"type": "none"}


def to_mjai(action: Action, actor: int, *, target: int | None = None,
            drawn: int | None = None) -> dict[str, Any]:
    """The mjai dict of a riichienv action taken by seat ``actor``.

    ``target`` is the seat whose tile is claimed (chi/pon/daiminkan/ron); ``drawn`` is the
    136-id of the tile the actor just drew, which marks the discard of that tile as
    ``tsumogiri`` (and names the tile of a tsumo win).
    """
    kind = int(action.action_type)
    if kind == DISCARD:
        return {"type": "dahai", "actor": actor, "pai": _NAMES[action.tile],
                "tsumogiri": action.tile == drawn}
    if kind in _CALL_TYPES:
        return {"type": _CALL_TYPES[kind], "actor": actor, "target": target,
                "pai": _NAMES[action.tile], "consumed": _names(action.consume_tiles)}
    if kind == PASS:
        return PASS_ACTION
    if kind == RIICHI:
        return {"type": "reach", "actor": actor}
    if kind == TSUMO:
        tile = action.tile if drawn is None else drawn
        return {"type": "hora", "actor": actor, "target": actor, "pai": _NAMES[tile]}
    if kind == RON:
        return {"type": "hora", "actor": actor, "target": target, "pai": _NAMES[action.tile]}
    if kind == ANKAN:
        return {"type": "ankan", "actor": actor, "consumed": _names(action.consume_tiles)}
    if kind == KAKAN:
        return {"type": "kakan", "actor": actor, "pai": _NAMES[action.tile],
                "consumed": _names(action.consume_tiles)}
    if kind == KYUSHU:
        return {"type": "ryukyoku", "actor": actor}
    raise IllegalActionError(f"riichienv action type {action.action_type} has no mjai form here")


def _names(ids: Iterable[int]) -> list[str]:
    return [_NAMES[i] for i in sorted(ids)]


def legal_from_engine(actions: Sequence[Action], actor: int, *, target: int | None = None,
                      drawn: int | None = None) -> tuple[list[dict[str, Any]], list[Action]]:
    """Distinct mjai legal actions and, index for index, one engine action for each."""
    mjai: list[dict[str, Any]] = []
    engine: list[Action] = []
    seen = set()
    for action in actions:
        kind = int(action.action_type)
        if kind == DISCARD:
            key = (_NAMES[action.tile], action.tile == drawn)
        elif action.consume_tiles:
            key = (kind, _NAMES[action.tile], tuple(sorted(_NAMES[i] for i in action.consume_tiles)))
        else:
            key = kind
        if key in seen:
            continue
        seen.add(key)
        mjai.append(to_mjai(action, actor, target=target, drawn=drawn))
        engine.append(action)
    return mjai, engine


def to_engine(obs: Any, mjai: dict[str, Any]) -> Action:
    """The riichienv action of ``obs`` (an ``Observation``) that the mjai dict names.

    Raises :class:`IllegalActionError` when no legal action of the observation matches.
    For many conversions in one decision, keep the two lists of :func:`legal_from_engine`.
    """
    if mjai.get("type") == "none":
        for action in obs.legal_actions():
            if int(action.action_type) == PASS:
                return action
    else:
        action = obs.select_action_from_mjai(_without_tsumogiri(mjai))
        if action is not None:
            if mjai.get("type") == "dahai" and mjai.get("tsumogiri"):
                return _tsumogiri_copy(obs, action)
            return action
    raise IllegalActionError(f"seat {obs.player_id}: {mjai} is not a legal action here")


def _without_tsumogiri(mjai: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in mjai.items() if k != "tsumogiri"}


def _tsumogiri_copy(obs: Any, action: Action) -> Action:
    """The discard of the drawn copy: riichienv keeps the drawn tile last in ``hand``."""
    hand = obs.hand
    if hand and _NAMES[hand[-1]] == _NAMES[action.tile]:
        for candidate in obs.legal_actions():
            if int(candidate.action_type) == DISCARD and candidate.tile == hand[-1]:
                return candidate
    return action
