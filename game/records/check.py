"""Replaying a record through the rules engine (riichienv) to check its scores.

What is compared (the engine computes every number itself):

* Each hand is replayed in ``RiichiEnv.step`` mode, not by ``apply_event``: the wall is
  rebuilt from the record (starting hands, live draws, rinshan draws, dora and ura
  indicators at the positions riichienv deals them from), the engine is reset to the
  record's dealer, round wind, honba and sticks, and the scores that the *engine* reached at
  the end of the previous hand (the record's own scores for the first hand of the file).
  Every decision of the record (discard, riichi, chi, pon, kans, win, nine terminals; a pass
  for everyone else) is played as a legal engine action, so the engine decides on its own
  who may win, what the hand is worth, the honba and riichi sticks paid, the tenpai/noten
  payments of an exhaustive draw and the abortive draws (four kans, four riichi, four winds).
* The engine's ``score_deltas`` of each ``hora`` / ``ryukyoku`` it logs are compared with the
  record's ``deltas`` (Tenhou's ``sc``, tenhou.net/6 deltas, mjai ``deltas``), win by win for
  a double ron; the engine's draws and its dora indicators must equal the record's.
* The engine's scores after each hand are compared with the record's scores at the start of
  the next hand, and after the last hand with the record's final scores (Tenhou's
  ``owari``; leftover riichi sticks go to the top seat, as on Tenhou) when the record has them.

A record the engine refuses (an action that is not legal for it) is reported as a mismatch
at that event: it is either a broken record or an engine bug; the message says which event.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import riichienv

from game import tiles
from game.errors import RecordError, TileError
from game.records.events import event_problem

_A = riichienv.ActionType
_KANS = ("ankan", "daiminkan", "kakan")
_ACTION_TYPES = ("dahai", "reach", "chi", "pon", "daiminkan", "kakan", "ankan", "hora",
                 "ryukyoku")
# riichienv's wall layout (measured with reset(wall=range(136))): hands dealt from index 0
# (4 tiles x 3 rounds then 1, from the dealer on), live draws from 52 up, rinshan draws
# 135, 134, 133, 132, dora indicators 131, 129, ..., ura indicators 130, 128, ...
_RINSHAN = (135, 134, 133, 132)
_DORA = (131, 129, 127, 125, 123)
_URA = (130, 128, 126, 124, 122)
_FIRST_DRAW = 52


@dataclass
class CheckResult:
    """The outcome of :func:`check_events`: ``ok`` and, if not, where it first went wrong
    (``mismatches``) or what the record does not state (``unverifiable``)."""

    ok: bool = True
    hands: int = 0
    mismatches: list[str] = field(default_factory=list)
    unverifiable: list[str] = field(default_factory=list)

    def add(self, message: str) -> None:
        self.ok = False
        self.mismatches.append(message)

    def cannot_check(self, message: str) -> None:
        self.ok = False
        self.unverifiable.append(message)


def kyoku_label(start: dict) -> str:
    return f"{start['bakaze']}{start['kyoku']}-{start['honba']}"


def split_kyokus(events: list[dict]) -> list[tuple[int, list[dict]]]:
    """``(index of start_kyoku, events of the hand up to end_kyoku)`` for every hand."""
    out: list[tuple[int, list[dict]]] = []
    current: list[dict] | None = None
    start = 0
    for i, event in enumerate(events):
        kind = event.get("type")
        if kind == "start_kyoku":
            current, start = [event], i
        elif current is not None:
            current.append(event)
            if kind == "end_kyoku":
                out.append((start, current))
                current = None
    if current is not None:
        raise RecordError("record ends inside a hand", position=f"event {len(events)}")
    return out


# --- building the wall --------------------------------------------------------------------

class _IdPool:
    """Hands out distinct 136-ids for mjai names (red fives get their own id)."""

    def __init__(self) -> None:
        self.used: set[int] = set()

    def take(self, name: str, where: str) -> int:
        if name == tiles.UNKNOWN:
            raise RecordError("hidden tile '?' in a record to check", position=where)
        try:
            tile_id = tiles.mjai_to_id(name, self.used)
        except TileError as exc:  # an unknown name, or more copies than the set holds
            extra = "" if "unknown" in str(exc) else " (a red-five set holds 3 plain fives)"
            raise RecordError(f"{exc}{extra}", position=where) from None
        if tile_id in self.used:
            raise RecordError(f"a second red {name}", position=where)
        self.used.add(tile_id)
        return tile_id


def build_wall(kyoku: list[dict], offset: int = 0) -> list[int]:
    """The 136-id wall, in riichienv's layout, that deals exactly this hand of the record."""
    start = kyoku[0]
    pool = _IdPool()
    wall: list[int | None] = [None] * 136
    oya = start["oya"]
    for j in range(4):
        seat_tiles = [pool.take(n, f"event {offset}") for n in start["tehais"][(oya + j) % 4]]
        if len(seat_tiles) != 13:
            raise RecordError("a starting hand without 13 tiles", position=f"event {offset}")
        for r in range(3):
            wall[16 * r + 4 * j:16 * r + 4 * j + 4] = seat_tiles[4 * r:4 * r + 4]
        wall[48 + j] = seat_tiles[12]
    live, rinshan, dora = _FIRST_DRAW, 0, 0
    wall[_DORA[0]] = pool.take(start["dora_marker"], f"event {offset}")
    after_kan = False
    ura_done = False
    for i, event in enumerate(kyoku[1:], offset + 1):
        kind = event.get("type")
        if kind == "tsumo":
            tile_id = pool.take(event["pai"], f"event {i}")
            if after_kan:
                if rinshan >= 4:
                    raise RecordError("a fifth rinshan draw", position=f"event {i}")
                wall[_RINSHAN[rinshan]] = tile_id
                rinshan += 1
            else:
                if live > 121 - rinshan:
                    raise RecordError("more draws than the live wall holds", position=f"event {i}")
                wall[live] = tile_id
                live += 1
            after_kan = False
        elif kind in _KANS:
            after_kan = True
        elif kind == "dora":
            dora += 1
            if dora >= 5:
                raise RecordError("a fifth kan dora", position=f"event {i}")
            wall[_DORA[dora]] = pool.take(event["dora_marker"], f"event {i}")
        elif kind == "hora" and event.get("ura_markers") and not ura_done:
            for k, name in enumerate(event["ura_markers"][:5]):
                wall[_URA[k]] = pool.take(name, f"event {i}")
            ura_done = True
    spare = iter(t for t in range(136) if t not in pool.used)
    return [t if t is not None else next(spare) for t in wall]


# --- replaying one hand -------------------------------------------------------------------

def _engine_rule() -> riichienv.GameRule:
    return riichienv.GameRule.default_tenhou()


def _pass_action(obs) -> riichienv.Action | None:
    for action in obs.legal_actions():
        if action.action_type == _A.PASS:
            return action
    return None


def _record_action(obs, event: dict):
    kind = event["type"]
    if kind == "hora":
        want = _A.TSUMO if event["actor"] == event.get("target", event["actor"]) else _A.RON
        for action in obs.legal_actions():
            if action.action_type == want:
                return action
        return None
    if kind == "ryukyoku":
        for action in obs.legal_actions():
            if action.action_type == _A.KYUSHU_KYUHAI:
                return action
        return None
    query = {k: v for k, v in event.items() if k in ("type", "actor", "target", "pai", "consumed", "tsumogiri")}
    return obs.select_action_from_mjai(query)


def replay_kyoku(env, kyoku: list[dict], scores: list[int], offset: int) -> tuple[list[dict], list[str]]:
    """Play one hand of the record in the engine; returns the engine's log of the hand
    (from its ``start_kyoku``) and the problems met (record actions the engine refused)."""
    start = kyoku[0]
    wall = build_wall(kyoku, offset)
    round_wind = "ESWN".index(start["bakaze"])
    env.reset(oya=start["oya"], wall=wall, round_wind=round_wind, scores=list(scores),
              honba=start["honba"], kyotaku=start["kyotaku"])
    log_start = max(i for i, e in enumerate(env.mjai_log) if e["type"] == "start_kyoku")
    actions = [(i, e) for i, e in enumerate(kyoku) if e.get("type") in _ACTION_TYPES]
    # A ryukyoku without an actor (exhaustive or abortive draw) is no decision.
    actions = [(i, e) for i, e in actions if not (e["type"] == "ryukyoku" and "actor" not in e)]
    problems: list[str] = []
    k = 0
    while k < len(actions) and not _hand_over(env, log_start):
        obs = {p: o for p, o in env.get_observations().items() if o.legal_actions()}
        if not obs:
            problems.append(f"event {offset + actions[k][0]}: engine waits for nobody")
            break
        chosen: dict[int, object] = {}
        # The record's next decisions by seats the engine is asking (several for a multi-ron).
        while k < len(actions):
            i, event = actions[k]
            actor = event.get("actor")
            if actor not in obs or actor in chosen or not _fits_phase(env, event):
                break
            action = _record_action(obs[actor], event)
            if action is None:
                legal = [a.to_mjai() for a in obs[actor].legal_actions()]
                problems.append(f"event {offset + i} ({event['type']} by {actor}): not legal "
                                f"for the engine (legal: {', '.join(legal[:8])})")
                return env.mjai_log[log_start:], problems
            chosen[actor] = action
            k += 1
            if event["type"] != "hora":
                break
        for seat, o in obs.items():
            if seat not in chosen:
                passing = _pass_action(o)
                if passing is None:
                    i, event = actions[k] if k < len(actions) else (len(kyoku) - 1, kyoku[-1])
                    problems.append(f"event {offset + i}: engine expects a decision of seat "
                                    f"{seat} that the record does not make")
                    return env.mjai_log[log_start:], problems
                chosen[seat] = passing
        env.step(chosen)
    if k < len(actions):
        i, event = actions[k]
        problems.append(f"event {offset + i} ({event['type']}): the engine ended the hand before it")
    # Drive a hand the record ends without a decision (exhaustive draw) to its end.
    guard = 0
    while not _hand_over(env, log_start) and guard < 400:
        obs = {p: o for p, o in env.get_observations().items() if o.legal_actions()}
        step = {}
        for seat, o in obs.items():
            passing = _pass_action(o)
            if passing is None:
                problems.append(f"event {offset + len(kyoku) - 1}: engine expects more play "
                                f"from seat {seat} than the record holds")
                return env.mjai_log[log_start:], problems
            step[seat] = passing
        env.step(step)
        guard += 1
    return env.mjai_log[log_start:], problems


def _is_response(event: dict) -> bool:
    """A call or ron on another seat's tile (the engine's WaitResponse phase)."""
    kind = event["type"]
    return kind in ("chi", "pon", "daiminkan") or (
        kind == "hora" and event.get("target", event["actor"]) != event["actor"])


def _fits_phase(env, event: dict) -> bool:
    responding = env.phase == riichienv.Phase.WaitResponse
    return _is_response(event) == responding


def _hand_over(env, log_start: int) -> bool:
    return any(e["type"] == "end_kyoku" for e in env.mjai_log[log_start:]) or env.done()


# --- the record's own order of play --------------------------------------------------------

_DOES = {"dahai": "discards", "reach": "declares riichi", "ankan": "declares an ankan",
         "kakan": "declares a kakan"}


def check_turns(kyoku: list[dict], offset: int = 0) -> None:
    """Raise :class:`RecordError` at the first event of a hand that no game can hold: a draw
    by a seat whose turn it is not, a discard, riichi or kan by a seat that neither drew nor
    called, a call of a tile that was not just discarded.

    These are faults of the record itself, so they are malformed input, not a disagreement
    with the engine; which tiles may be played is left to the engine.
    """
    drawer = kyoku[0]["oya"]            # the seat whose draw comes next
    holder: int | None = None           # the seat that drew or called and must discard
    offered: int | None = None          # the seat whose discard may be called now
    for i, event in enumerate(kyoku[1:], offset + 1):
        kind = event["type"]
        actor = event.get("actor")
        problem = ""
        if kind == "tsumo":
            if holder is not None:
                problem = f"seat {actor} draws while seat {holder} must discard"
            elif actor != drawer:
                problem = f"seat {actor} draws, but the draw is seat {drawer}'s"
            holder, offered = actor, None
        elif kind in ("dahai", "reach", "ankan", "kakan"):
            if actor != holder:
                problem = (f"seat {actor} {_DOES[kind]} out of turn ("
                           + (f"seat {holder} must discard)" if holder is not None
                              else "no seat has drawn)"))
            elif kind != "reach":
                # After a kan its own rinshan draw comes next; a kakan is open to chankan.
                holder, drawer = None, actor if kind != "dahai" else (actor + 1) % 4
                offered = None if kind == "ankan" else actor
        elif kind in ("chi", "pon", "daiminkan"):
            target = event["target"]
            if holder is not None or offered != target or target == actor:
                problem = f"seat {actor} calls a tile that seat {target} did not just discard"
            elif kind == "chi" and (actor - target) % 4 != 1:
                problem = f"seat {actor} calls chi from seat {target}, not the seat on its left"
            holder, offered = (None, None) if kind == "daiminkan" else (actor, None)
            drawer = actor
        elif kind in ("hora", "ryukyoku"):
            return  # play is over; the engine judges the result
        if problem:
            raise RecordError(problem, position=f"event {i}")


# --- comparing a whole record -------------------------------------------------------------

def _results(events: list[dict]) -> list[dict]:
    return [e for e in events if e.get("type") in ("hora", "ryukyoku")]


def _until_end(log: list[dict]) -> list[dict]:
    for i, e in enumerate(log):
        if e["type"] in ("end_kyoku", "end_game"):
            return log[:i + 1]
    return log


def _scores_after(kyoku: list[dict]) -> list[int] | None:
    """The record's scores at the end of a hand: start + riichi deposits + result deltas."""
    scores = list(kyoku[0]["scores"])
    for e in kyoku:
        if e.get("type") in ("reach_accepted", "hora", "ryukyoku"):
            deltas = e.get("deltas")
            if deltas is None:
                if e["type"] == "reach_accepted":
                    deltas = [-1000 if s == e["actor"] else 0 for s in range(4)]
                else:
                    return None
            scores = [s + d for s, d in zip(scores, deltas)]
    return scores


def _compare_hand(record: list[dict], engine: list[dict], offset: int, label: str,
                  result: CheckResult) -> None:
    rec_draws = [e["pai"] for e in record if e.get("type") == "tsumo"]
    eng_draws = [e["pai"] for e in engine if e.get("type") == "tsumo"]
    if rec_draws != eng_draws:
        n = next((j for j, (a, b) in enumerate(zip(rec_draws, eng_draws)) if a != b),
                 min(len(rec_draws), len(eng_draws)))
        result.add(f"{label} (event {offset}): draw {n + 1} differs: record "
                   f"{rec_draws[n:n + 1]} engine {eng_draws[n:n + 1]}")
    rec_dora = [e["dora_marker"] for e in record if e.get("type") == "dora"]
    eng_dora = [e["dora_marker"] for e in engine if e.get("type") == "dora"]
    if rec_dora != eng_dora:
        note = ""
        if _early_dora_before_chankan(engine):
            note = (" [riichienv: shows an earlier kakan's dora when a second kan is declared,"
                    " before the chankan chance; Tenhou never shows it when the kan is robbed]")
        result.add(f"{label} (event {offset}): kan dora record {rec_dora} engine {eng_dora}{note}")
    inconsistent = _record_inconsistency(record)
    if inconsistent:
        result.add(f"{label} (event {offset}): record is inconsistent: {inconsistent}")
    rec_res = [(i, e) for i, e in enumerate(record) if e.get("type") in ("hora", "ryukyoku")]
    eng_res = _results(engine)
    if len(rec_res) != len(eng_res):
        result.add(f"{label} (event {offset}): record ends with "
                   f"{[e['type'] for _, e in rec_res]}, engine with {[e['type'] for e in eng_res]}")
        return
    for (i, rec), eng in zip(rec_res, eng_res):
        where = f"{label} event {offset + i} {rec['type']}"
        if rec["type"] != eng["type"]:
            result.add(f"{where}: engine gives {eng['type']}")
            continue
        if rec["type"] == "hora" and (rec["actor"], rec.get("target")) != (eng["actor"], eng.get("target")):
            result.add(f"{where}: engine winner {eng['actor']} from {eng.get('target')}")
            continue
        if rec.get("deltas") is not None and list(rec["deltas"]) != list(eng.get("deltas", [])):
            result.add(f"{where}: deltas record {rec['deltas']} engine {eng.get('deltas')}")


def _early_dora_before_chankan(engine: list[dict]) -> bool:
    for a, b, c in zip(engine, engine[1:], engine[2:]):
        if a["type"] == "kakan" and b["type"] == "dora" and c["type"] == "hora":
            return True
    return False


def _record_inconsistency(record: list[dict]) -> str:
    """What the record's own numbers contradict, or ``""``: the wins of a hand must hand out
    exactly the riichi sticks on the table (start sticks + accepted riichi)."""
    horas = [e for e in record if e.get("type") == "hora" and e.get("deltas") is not None]
    if not horas:
        return ""
    sticks = record[0].get("kyotaku", 0) + sum(1 for e in record if e.get("type") == "reach_accepted")
    total = sum(sum(e["deltas"]) for e in horas)
    if total != 1000 * sticks:
        return (f"its win deltas sum to {total} while {sticks} riichi stick(s) "
                f"({1000 * sticks}) are on the table")
    return ""


def check_file(path) -> tuple[str, CheckResult]:
    """Read any record file and check it: ``("OK ..." / "MISMATCH ..." / "UNVERIFIABLE ...",
    result)``.

    Raises :class:`RecordError` for a malformed file (a malformed event, no hand, an
    impossible order of play, tiles that cannot form a physical set such as a fifth copy),
    naming file and position.
    """
    from game.records import read_events  # the package imports this module's siblings

    events = read_events(path)
    try:
        result = check_events(events)
    except RecordError as exc:
        raise RecordError(str(exc).split(": ", 1)[-1] if exc.position else str(exc),
                          path=str(path), position=exc.position) from None
    if result.ok:
        return f"OK {path} ({result.hands} hands)", result
    status, problems = (("MISMATCH", result.mismatches) if result.mismatches
                        else ("UNVERIFIABLE", result.unverifiable))
    more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{status} {path}: {problems[0]}{more}", result


def check_events(events: list[dict], *, game_mode: int = 2) -> CheckResult:
    """Replay every hand of ``events`` (canonical mjai) in riichienv and compare scores.

    ``game_mode`` follows riichienv's integers (1 = east-only, 2 = east-south); it only
    decides the engine's end-of-game handling, which the per-hand checks do not depend on.
    See the module docstring for exactly what is compared.
    """
    # Everything the engine is handed is checked first: a malformed field would reach it as
    # a Rust panic (a dealer of 7) or stop the replay with an exception of ours.
    for i, event in enumerate(events):
        problem = event_problem(event)
        if problem is not None:
            raise RecordError(f"malformed event: {problem}", position=f"event {i}")
    kyokus = split_kyokus(events)
    if not kyokus:
        raise RecordError("the record holds no hand (no start_kyoku ... end_kyoku)",
                          position=f"event {len(events) - 1}")
    for offset, kyoku in kyokus:
        check_turns(kyoku, offset)
    result = CheckResult()
    env = riichienv.RiichiEnv(game_mode=game_mode, rule=_engine_rule())
    engine_scores: list[int] | None = None
    for offset, kyoku in kyokus:
        start = kyoku[0]
        label = kyoku_label(start)
        if engine_scores is not None and list(start["scores"]) != engine_scores:
            result.add(f"{label} (event {offset}): record starts with scores {start['scores']}, "
                       f"engine reached {engine_scores}")
        scores = engine_scores if engine_scores is not None else list(start["scores"])
        log, problems = replay_kyoku(env, kyoku, scores, offset)
        for p in problems:
            result.add(f"{label}: {p}")
        log = _until_end(log)
        _compare_hand(kyoku, log, offset, label, result)
        result.hands += 1
        engine_scores = _engine_scores_after(scores, log)
    final = next((e.get("scores") for e in reversed(events) if e.get("type") == "end_game"), None)
    offset, last = kyokus[-1]
    if final is None and any(e.get("deltas") is None for e in _results(last)):
        # Every other hand is checked through the scores the next hand starts with.
        result.cannot_check(f"{kyoku_label(last[0])} (event {offset}): the record states "
                            f"neither the deltas of the last hand nor final scores")
    if final is not None:
        last_sticks = _sticks_left(last)
        closing = _award_sticks(engine_scores, last_sticks)
        if list(final) != closing:
            result.add(f"end_game: final scores record {list(final)} engine {closing}")
    return result


def _engine_scores_after(scores: list[int], log: list[dict]) -> list[int]:
    out = list(scores)
    for e in log:
        if e["type"] in ("hora", "ryukyoku") and e.get("deltas") is not None:
            out = [s + d for s, d in zip(out, e["deltas"])]
        elif e["type"] == "reach_accepted":
            out[e["actor"]] -= 1000
    return out


def _sticks_left(last: list[dict]) -> int:
    """Riichi sticks left on the table after the last hand (Tenhou gives them to the top)."""
    sticks = last[0]["kyotaku"] + sum(1 for e in last if e.get("type") == "reach_accepted")
    return 0 if any(e.get("type") == "hora" for e in last) else sticks


def _award_sticks(scores: list[int], sticks: int) -> list[int]:
    out = list(scores)
    if sticks:
        top = max(range(4), key=lambda s: (out[s], -s))
        out[top] += 1000 * sticks
    return out
