"""The decisions of a game record: where a seat had to act, what it could do, what it did.

:func:`iter_decisions` replays a record's mjai events through riichienv (the Tenhou rule
preset), which says after each event which seats it would ask and their legal actions, and
pairs every such point with the seat's :class:`~game.state.TableState` and the action the
record's player took, read from the events that follow. These are the expert decisions the
estimators of Kurita & Hoki (specs/kurita_hoki.md) and cnn-bot's nets (specs/cnn_bot.md)
learn from, and the points that review compares a player with.

The engine learns the walls from the record itself (``start_kyoku`` deals, ``tsumo``
draws), so records whose walls are unknown, such as Tenhou logs, replay as well as our own
self-play games. Every point where the engine asks a seat is yielded, those with a single
legal action (a discard forced by riichi) included; filter on ``len(d.legal) > 1`` for
choices proper.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import riichienv

from game.actions import PASS_ACTION, legal_from_engine
from game.errors import RecordError
from game.state import TableState
from game.tiles import id_to_mjai, mjai_to_kind

# Events after which the actor decides, and those after which the other seats may claim.
_OWN_TURN = frozenset(("tsumo", "chi", "pon", "reach"))
_CLAIMABLE = frozenset(("dahai", "kakan", "ankan"))
_CALLS = frozenset(("chi", "pon", "daiminkan"))
_ID_NAMES = tuple(id_to_mjai(i) for i in range(136))


class Decision(NamedTuple):
    """One point of a record where ``seat`` was asked to act.

    ``state`` is the seat's table state just before the choice (a snapshot of its own),
    ``legal`` the engine's legal actions as mjai dicts, ``chosen`` the record's choice in
    the same form (``{"type": "none"}`` for a pass), ``index`` the position in the event
    list of the last event before the choice.
    """
    seat: int
    state: TableState
    legal: list[dict[str, Any]]
    chosen: dict[str, Any]
    index: int


def iter_decisions(events: Sequence[dict[str, Any]],
                   seats: Iterable[int] | None = None) -> Iterator[Decision]:
    """Every decision of ``seats`` (all four by default) in a record, in event order.

    Raises :class:`RecordError` (position = event index) where the record breaks the rules
    or the engine cannot follow it.
    """
    wanted = tuple(range(4)) if seats is None else tuple(sorted(set(int(s) for s in seats)))
    if any(not 0 <= s < 4 for s in wanted):
        raise ValueError(f"seats {wanted!r} outside 0..3")
    env = riichienv.RiichiEnv(game_mode=2, rule=riichienv.GameRule.default_tenhou())
    states = [TableState(s) for s in wanted]
    n = len(events)
    i = 0
    while i < n:
        event = events[i]
        _apply(env, states, event, i)
        asked = _asked_seats(event, wanted)
        j = i + 1
        if asked:
            # Kan dora shown right after the draw belongs to what the seat knows.
            while j < n and events[j].get("type") == "dora":
                _apply(env, states, events[j], j)
                j += 1
            yield from _decisions_at(env, states, wanted, asked, events, i, j)
        i = j


def _for_engine(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` as riichienv reads it: it parses start_game's ``id`` as a string and fails
    on the integer that mjai.app and the original mjai server send (it has no use for it)."""
    if event["type"] == "start_game" and "id" in event:
        return {k: v for k, v in event.items() if k != "id"}
    return event


def _apply(env: Any, states: list[TableState], event: dict[str, Any], index: int) -> None:
    for state in states:
        state.update(event)
    try:
        env.apply_event(_for_engine(event))
    except Exception as exc:  # the engine's own error types are not exported
        raise RecordError(f"riichienv cannot follow {event!r}: {exc}",
                          position=f"event {index}") from None


def _asked_seats(event: dict[str, Any], wanted: tuple[int, ...]) -> list[int]:
    kind = event.get("type")
    if kind in _OWN_TURN:
        return [event["actor"]] if event["actor"] in wanted else []
    if kind in _CLAIMABLE:
        return [s for s in wanted if s != event["actor"]]
    return []


def _decisions_at(env: Any, states: list[TableState], wanted: tuple[int, ...],
                  asked: list[int], events: Sequence[dict[str, Any]], i: int,
                  j: int) -> Iterator[Decision]:
    event = events[i]
    target = None if event["type"] in _OWN_TURN else event["actor"]
    observations = env.get_observations(asked)
    for seat in asked:
        obs = observations.get(seat)
        state = states[wanted.index(seat)]
        legal = _legal_for(obs.legal_actions() if obs is not None else [], state, target,
                           env.drawn_tile)
        if legal is None:
            continue
        chosen = _chosen(events, i, j, seat, state)
        yield Decision(seat, state.copy(), legal, chosen, i)


def _without_ron(legal: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """Legal actions less ron, for a seat the state knows is furiten.

    Fed events, the engine does not see a win passed (a pass leaves no event), so it misses
    temporary and riichi furiten; the seat's state tracks both.
    """
    return [a for a in legal if not (a["type"] == "hora" and a["target"] != seat)]


def _with_tsumogiri_choices(legal: list[dict[str, Any]], state: TableState) -> list[dict[str, Any]]:
    """Discards with the ``tsumogiri`` flag set from the seat's own hand.

    In a replay the engine numbers copies by name, so it cannot tell the drawn tile from a
    copy of the same name already in hand; both discards are legal (and differ to a reader
    of the river), except under riichi, where only the drawn tile may go.
    """
    drawn = _ID_NAMES[state.drawn] if state.drawn is not None else None
    out: list[dict[str, Any]] = []
    done: set[str] = set()
    for action in legal:
        if action["type"] != "dahai":
            out.append(action)
            continue
        pai = action["pai"]
        if pai in done:
            continue
        done.add(pai)
        if pai == drawn:
            out.append({**action, "tsumogiri": True})
            in_hand = sum(1 for t in state.hand_ids if _ID_NAMES[t] == pai)
            if in_hand >= 2 and not state.riichi[state.seat]:
                out.append({**action, "tsumogiri": False})
        else:
            out.append({**action, "tsumogiri": False})
    return out


def _chosen(events: Sequence[dict[str, Any]], i: int, j: int, seat: int,
            state: TableState) -> dict[str, Any]:
    """The record's action for ``seat`` at the decision after event ``i``."""
    event = events[i]
    n = len(events)
    if event["type"] in _OWN_TURN:
        if j >= n:
            raise RecordError(f"the record ends while seat {seat} must act", position=f"event {i}")
        nxt = events[j]
        if nxt["type"] == "ryukyoku":
            return {"type": "ryukyoku", "actor": seat}  # nine terminals
        if nxt.get("actor") != seat:
            raise RecordError(f"seat {seat} must act but the record goes on with {nxt!r}",
                              position=f"event {j}")
        return _own_action(nxt, state)
    k = j
    while k < n and events[k]["type"] in ("reach_accepted", "dora"):
        k += 1
    while k < n and events[k]["type"] == "hora":
        if events[k]["actor"] == seat:
            return {"type": "hora", "actor": seat, "target": event["actor"],
                    "pai": _claimed_name(event)}
        k += 1
    if k < n and events[k]["type"] in _CALLS and events[k]["actor"] == seat:
        nxt = events[k]
        return {"type": nxt["type"], "actor": seat, "target": nxt["target"],
                "pai": nxt["pai"], "consumed": canonical_tiles(nxt["consumed"])}
    return PASS_ACTION


def _claimed_name(event: dict[str, Any]) -> str:
    if event["type"] == "ankan":
        return event["consumed"][0]
    return event["pai"]


def _own_action(event: dict[str, Any], state: TableState) -> dict[str, Any]:
    kind, actor = event["type"], event["actor"]
    if kind == "dahai":
        return {"type": "dahai", "actor": actor, "pai": event["pai"],
                "tsumogiri": bool(event.get("tsumogiri", False))}
    if kind == "reach":
        return {"type": "reach", "actor": actor}
    if kind == "hora":
        if state.drawn is None:
            raise RecordError(f"seat {actor} wins by tsumo without a drawn tile")
        return {"type": "hora", "actor": actor, "target": actor, "pai": _ID_NAMES[state.drawn]}
    if kind == "ankan":
        return {"type": "ankan", "actor": actor, "consumed": canonical_tiles(event["consumed"])}
    if kind == "kakan":
        return {"type": "kakan", "actor": actor, "pai": event["pai"],
                "consumed": canonical_tiles(event["consumed"])}
    raise RecordError(f"seat {actor} answers its turn with {event!r}")


def recorded_index(legal: Sequence[dict[str, Any]], chosen: dict[str, Any]) -> int | None:
    """The index in ``legal`` of the record's ``chosen`` action (a discard by its kind, a call
    by its tiles), or None when no legal action is it."""
    t = chosen.get("type")
    for i, a in enumerate(legal):
        if a["type"] != t:
            continue
        if t == "dahai" and mjai_to_kind(a["pai"]) != mjai_to_kind(chosen["pai"]):
            continue
        if t in ("chi", "pon") and (mjai_to_kind(a["pai"]) != mjai_to_kind(chosen["pai"]) or
                                    sorted(map(mjai_to_kind, a["consumed"])) !=
                                    sorted(map(mjai_to_kind, chosen["consumed"]))):
            continue
        return i
    return None


def canonical_tiles(names: Iterable[str]) -> list[str]:
    """mjai names in the order game.actions gives them: by kind, a red five first."""
    return sorted(names, key=lambda n: (mjai_to_kind(n), not n.endswith("r")))


class LiveSeat:
    """One seat of a live game, followed from the mjai events it is sent.

    ``feed(event)`` takes each event as the seat sees it (others' draws hidden) and returns
    the seat's legal actions as mjai dicts when the event asks it to act, else ``None``.
    The same riichienv replay and the same corrections as :func:`iter_decisions` apply
    (furiten from passed wins, the tsumogiri flag), so a live bot is offered exactly what a
    record's player was. Used by the mjai stdin/stdout bot.
    """

    def __init__(self, seat: int):
        self.seat = int(seat)
        self.state = TableState(self.seat)
        self._env = riichienv.RiichiEnv(game_mode=2, rule=riichienv.GameRule.default_tenhou())
        self._index = 0

    def feed(self, event: dict[str, Any]) -> list[dict[str, Any]] | None:
        self.state.update(event)
        try:
            obs = self._env.observe_event(_for_engine(event), self.seat)
        except Exception as exc:  # the engine's own error types are not exported
            raise RecordError(f"riichienv cannot follow {event!r}: {exc}",
                              position=f"event {self._index}") from None
        self._index += 1
        if obs is None or not _asked_seats(event, (self.seat,)):
            return None
        target = None if event["type"] in _OWN_TURN else event["actor"]
        return _legal_for(obs.legal_actions(), self.state, target, self._env.drawn_tile)


def _legal_for(actions: Sequence[Any], state: TableState, target: int | None,
               drawn: int | None) -> list[dict[str, Any]] | None:
    """The seat's mjai legal actions from the engine's, corrected by what its state knows."""
    if not actions:
        return None
    legal, _ = legal_from_engine(actions, state.seat, target=target, drawn=drawn)
    legal = _with_tsumogiri_choices(legal, state)
    if state.furiten:
        legal = _without_ron(legal, state.seat)
        if legal == [PASS_ACTION]:
            return None  # nothing left to choose: the engine would not have asked
    return legal
