"""tenhou.net/6 JSON (the editor/viewer format mjai-reviewer reads) into canonical mjai events.

Format notes: ``specs/anchors.md`` section 7.2. A round lists, per seat, the starting hand,
the tiles taken (draws and call strings) and the tiles given (discards, ``60`` = tsumogiri,
``r..`` riichi, kakan/ankan strings, ``0`` after a daiminkan). The turn order is not stored:
:func:`_Round.play` rebuilds it by rotation and call matching, tracking every concealed hand
and backtracking when a guessed call (a pon of the same tile from the same seat may come
later) leads to a contradiction. Kan dora timing is not stored either: it is placed as in
Tenhou's mjlog (:mod:`game.records.events`).
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from game import tiles
from game.errors import MahjongError, RecordError
from game.records import events as ev
from game.records.yaku import YAKUMAN_HAN, yaku_id_from_japanese, yaku_name

TSUMOGIRI = 60
_RESULTS = {
    "流局": "exhaustive", "全員聴牌": "exhaustive", "全員不聴": "exhaustive",
    "流し満貫": "nagashi_mangan", "九種九牌": "kyushukyuhai", "四家立直": "suucha_riichi",
    "三家和": "sanchaho", "四槓散了": "suukaikan", "四風連打": "suufon_renda",
}
_HAN = re.compile(r"\((\d+)飜\)|\((役満)\)|\((\d+)倍役満\)")
_FU = re.compile(r"(\d+)符")


def read_tenhou6(text: str, path: str | None = None) -> list[dict]:
    """Canonical mjai events of a tenhou.net/6 file: one JSON game, or one round per line.

    Raises :class:`RecordError` naming the file and the position (``line L`` for the game,
    ``line L round R`` for a round) for anything that is no tenhou.net/6 game: a field of
    another type or size, an unknown tile code or call string, a round no order of play
    fits. Every event made is checked as the mjai reader checks its lines.
    """
    games = _load(text, path)
    line_no, first = games[0]
    names = first.get("name") or ["", "", "", ""]
    if type(names) is not list or len(names) > 4:
        raise RecordError(f"'name' {_short(names)} is not a list of four names", path=path,
                          position=f"line {line_no}")
    names = [str(n) for n in names]
    events: list[dict] = [{"type": "start_game", "names": names + [""] * (4 - len(names))}]
    final = None
    for line_no, game in games:
        log = game.get("log")
        if not isinstance(log, list):
            raise RecordError("no 'log' list", path=path, position=f"line {line_no}")
        for r, rnd in enumerate(log):
            where = f"line {line_no} round {r}"
            try:
                made = _Round(rnd).play()
            except MahjongError as exc:  # a TileError or RecordError without a position
                raise RecordError(str(exc), path=path, position=where) from None
            ev.check_made(made, path, where)
            events.extend(made)
        sc = game.get("sc")
        if sc is not None:
            if (type(sc) is not list or len(sc) != 8
                    or not all(type(v) in (int, float) and abs(v) < 1e7 for v in sc)):
                raise RecordError(f"'sc' {_short(sc)} is not four scores and four points",
                                  path=path, position=f"line {line_no}")
            final = [int(round(float(v))) for v in sc[0::2]]
    end: dict = {"type": "end_game"}
    if final is not None:
        end["scores"] = final
    events.append(end)
    return events


def _short(value) -> str:
    return ev.short(value, 40)


def _ints(value, what: str, n: int | None = None, lo: int = -10**7, hi: int = 10**7) -> list[int]:
    """``value`` as a list of integers in lo..hi (``n`` of them when given), else RecordError."""
    if (type(value) is not list or (n is not None and len(value) != n)
            or not all(type(v) is int and lo <= v <= hi for v in value)):
        size = f"{n} " if n is not None else ""
        raise RecordError(f"{what} {_short(value)} is not a list of {size}integers in {lo}..{hi}")
    return value


def _load(text: str, path: str | None) -> list[tuple[int, dict]]:
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        return [(1, whole)]
    games = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"malformed JSON ({exc.msg})", path=path,
                              position=f"line {n}") from None
        if not isinstance(obj, dict):
            raise RecordError("a line that is not a JSON object", path=path, position=f"line {n}")
        games.append((n, obj))
    if not games:
        raise RecordError("no game in the file", path=path, position="line 1")
    return games


def _name(code) -> str:
    return tiles.tenhou6_to_mjai(int(code))


# --- call strings -------------------------------------------------------------------------

@dataclass(frozen=True)
class _Call:
    kind: str            # chi pon daiminkan kakan ankan
    letter_at: int       # index of the letter in the string
    tile: int            # the tile after the letter: called (chi/pon/daiminkan), added (kakan)
    own: tuple[int, ...]  # the other codes of the string

    def source(self, actor: int) -> int | None:
        """Absolute seat the tile came from (letter position: 0 kamicha, 2 toimen, else shimocha)."""
        if self.kind in ("ankan", "kakan"):
            return None
        rel = {0: 3, 2: 2}.get(self.letter_at, 1)
        return (actor + rel) % 4


def parse_call(text: str) -> _Call:
    """Decode a tenhou.net/6 call string such as ``c151416``, ``4545p45``, ``k51151515``."""
    kinds = {"c": "chi", "p": "pon", "m": "daiminkan", "k": "kakan", "a": "ankan"}
    for i, ch in enumerate(text):
        if ch in kinds:
            digits = text[:i] + text[i + 1:]
            if not digits.isdigit() or len(digits) % 2 or i % 2 or i + 3 > len(text):
                break
            codes = [int(digits[j:j + 2]) for j in range(0, len(digits), 2)]
            called = int(text[i + 1:i + 3])
            own = list(codes)
            own.remove(called)
            call = _Call(kinds[ch], i, called, tuple(own))
            size = {"chi": 3, "pon": 3, "daiminkan": 4, "kakan": 4, "ankan": 4}[call.kind]
            if len(codes) != size:
                break
            for c in codes:
                tiles.tenhou6_to_mjai(c)
            return call
    raise RecordError(f"unknown call string {text!r}")


def _same(a: int, b: int) -> bool:
    """Equal tile codes (a red five only equals itself)."""
    return a == b


# --- rebuilding one round -----------------------------------------------------------------

@dataclass
class _State:
    takes_at: list[int]
    gives_at: list[int]
    hands: list[Counter]
    events: list[dict]
    actor: int
    need_draw: bool
    after_kan: bool = False
    last_draw: int | None = None
    pending_dora: int = 0
    dora_used: int = 1
    reached: set = field(default_factory=set)
    scores: list[int] = field(default_factory=list)

    def copy(self) -> "_State":
        return _State(list(self.takes_at), list(self.gives_at), [Counter(h) for h in self.hands],
                      list(self.events), self.actor, self.need_draw, self.after_kan,
                      self.last_draw, self.pending_dora, self.dora_used, set(self.reached),
                      list(self.scores))


class _Contradiction(Exception):
    """The guessed order of play does not fit the record: try another guess."""


class _Round:
    """One round of a tenhou.net/6 log, replayed into events."""

    def __init__(self, rnd: list):
        if not isinstance(rnd, list) or len(rnd) != 17:
            raise RecordError("a round must be a list of 17 entries")
        self.round_no, self.honba, self.kyotaku = _ints(rnd[0], "the round head", 3, 0, 255)
        self.oya = self.round_no % 4
        self.start_scores = _ints(rnd[1], "the start scores", 4)
        self.doras = _ints(rnd[2], "the dora indicators")
        self.uras = _ints(rnd[3], "the ura indicators")
        self.haipai = [_ints(rnd[4 + 3 * s], f"seat {s}'s starting hand", 13) for s in range(4)]
        self.takes = [self._moves(rnd[5 + 3 * s], f"seat {s}'s takes") for s in range(4)]
        self.gives = [self._moves(rnd[6 + 3 * s], f"seat {s}'s discards") for s in range(4)]
        self.result = self._result(rnd[16])
        if not self.doras:
            raise RecordError("no dora indicator")
        for code in [*self.doras, *self.uras, *(t for hand in self.haipai for t in hand)]:
            _name(code)

    @staticmethod
    def _moves(value, what: str) -> list:
        if type(value) is not list or not all(type(v) in (int, str) for v in value):
            raise RecordError(f"{what} {_short(value)} is not a list of tile codes and call strings")
        return value

    @staticmethod
    def _result(value) -> list:
        """The round's result: ``["和了", deltas, info, ...]`` or ``[title, deltas?]``."""
        if type(value) is not list or not value or type(value[0]) is not str:
            raise RecordError(f"round result {_short(value)} is not a list starting with its title")
        if value[0] == "和了":
            if len(value) < 3 or len(value) % 2 == 0:
                raise RecordError("a win result must hold deltas and details per winner")
            for k in range(1, len(value), 2):
                _ints(value[k], "win deltas", 4)
                info = value[k + 1]
                if type(info) is not list or len(info) < 3:
                    raise RecordError(f"win details {_short(info)} lack winner, target and pao")
                _ints(info[:3], "winner, target and pao", 3, 0, 3)
        elif len(value) > 1:
            _ints(value[1], "draw deltas", 4)
        return value

    def play(self) -> list[dict]:
        start = ev.start_kyoku(
            round_no=self.round_no, honba=self.honba, kyotaku=self.kyotaku, oya=self.oya,
            scores=self.start_scores, dora_marker=_name(self.doras[0]),
            tehais=[[_name(t) for t in hand] for hand in self.haipai])
        state = _State([0] * 4, [0] * 4, [Counter(h) for h in self.haipai], [start],
                       self.oya, True, scores=list(self.start_scores))
        try:
            final = self._run(state)
        except _Contradiction as exc:
            raise RecordError(f"no order of play fits the round ({exc})") from None
        return final.events

    # The search: returns the finished state or raises _Contradiction.
    def _run(self, st: _State) -> _State:
        while True:
            a = st.actor
            if st.need_draw:
                if st.takes_at[a] >= len(self.takes[a]):
                    return self._finish(st, "draw")
                tile = self.takes[a][st.takes_at[a]]
                if not isinstance(tile, int) or tile in (0, TSUMOGIRI):
                    raise _Contradiction(f"seat {a} should draw but takes {tile!r}")
                st.takes_at[a] += 1
                _name(tile)
                st.hands[a][tile] += 1
                st.last_draw = tile
                st.events.append({"type": "tsumo", "actor": a, "pai": _name(tile)})
                st.need_draw = False
            if st.gives_at[a] >= len(self.gives[a]):
                return self._finish(st, "turn")
            give = self.gives[a][st.gives_at[a]]
            st.gives_at[a] += 1
            if isinstance(give, str) and ("a" in give or "k" in give):
                self._own_kan(st, a, parse_call(give))
                if st.takes_at[a] >= len(self.takes[a]):
                    return self._finish(st, "kan")  # robbed (chankan) or the hand ended
                continue
            tile, riichi = self._discard_tile(st, a, give)
            self._flush_dora(st)
            if riichi:
                st.events.append({"type": "reach", "actor": a})
            st.events.append({"type": "dahai", "actor": a, "pai": _name(tile),
                              "tsumogiri": give in (TSUMOGIRI, f"r{TSUMOGIRI}")})
            st.last_draw = None
            options = self._callers(st, a, tile)
            ends_here = not options and self._nobody_draws_next(st, a)
            if riichi and not (ends_here and self._ron_on(a)):
                self._accept_reach(st, a)
            if ends_here:
                return self._finish(st, "discard")
            if not options:
                st.actor, st.need_draw = (a + 1) % 4, True
                continue
            return self._branch(st, a, tile, options)

    def _branch(self, st: _State, a: int, tile: int, options: list) -> _State:
        """Try each seat that may call the discard, then no call at all."""
        reasons = []
        for choice in options + [None]:
            trial = st.copy()
            try:
                if choice is None:
                    trial.actor, trial.need_draw = (a + 1) % 4, True
                else:
                    self._call(trial, a, tile, *choice)
                return self._run(trial)
            except _Contradiction as exc:
                reasons.append(str(exc))
        raise _Contradiction(reasons[-1])

    def _discard_tile(self, st: _State, a: int, give) -> tuple[int, bool]:
        riichi = False
        if isinstance(give, str):
            if not (give.startswith("r") and give[1:].isdigit() and len(give) == 3):
                raise _Contradiction(f"seat {a} gives {give!r} where a discard belongs")
            riichi, give = True, int(give[1:])
        if give == TSUMOGIRI:
            if st.last_draw is None:
                raise _Contradiction(f"seat {a} discards the drawn tile without a draw")
            give = st.last_draw
        if not isinstance(give, int) or give == 0:
            raise _Contradiction(f"seat {a} discards {give!r}")
        _name(give)
        if st.hands[a][give] <= 0:
            raise _Contradiction(f"seat {a} discards {_name(give)} it does not hold")
        st.hands[a][give] -= 1
        return give, riichi

    def _accept_reach(self, st: _State, a: int) -> None:
        deltas = [-1000 if s == a else 0 for s in range(4)]
        st.scores = [s + d for s, d in zip(st.scores, deltas)]
        st.reached.add(a)
        st.events.append({"type": "reach_accepted", "actor": a, "deltas": deltas,
                          "scores": list(st.scores)})

    def _own_kan(self, st: _State, a: int, call: _Call) -> None:
        if call.kind == "ankan":
            codes = [call.tile, *call.own]
            self._take_from_hand(st, a, codes)
            st.events.append({"type": "ankan", "actor": a,
                              "consumed": ev.sorted_names(_name(c) for c in codes)})
            self._flush_dora(st)
            self._reveal(st)
        else:
            self._take_from_hand(st, a, [call.tile])
            st.events.append({"type": "kakan", "actor": a, "pai": _name(call.tile),
                              "consumed": ev.sorted_names(_name(c) for c in call.own)})
            self._flush_dora(st)
            st.pending_dora += 1
        st.need_draw = True
        st.last_draw = None

    def _take_from_hand(self, st: _State, a: int, codes: list[int]) -> None:
        for c in codes:
            if st.hands[a][c] <= 0:
                raise _Contradiction(f"seat {a} melds {_name(c)} it does not hold")
            st.hands[a][c] -= 1

    def _reveal(self, st: _State) -> None:
        if st.dora_used < len(self.doras):
            st.events.append({"type": "dora", "dora_marker": _name(self.doras[st.dora_used])})
            st.dora_used += 1

    def _flush_dora(self, st: _State) -> None:
        while st.pending_dora:
            st.pending_dora -= 1
            self._reveal(st)

    def _callers(self, st: _State, a: int, tile: int) -> list[tuple[int, _Call]]:
        found = []
        for s in range(4):
            if s == a or st.takes_at[s] >= len(self.takes[s]):
                continue
            nxt = self.takes[s][st.takes_at[s]]
            if not isinstance(nxt, str):
                continue
            call = parse_call(nxt)
            if call.kind in ("chi", "pon", "daiminkan") and _same(call.tile, tile) \
                    and call.source(s) == a:
                found.append((s, call))
        found.sort(key=lambda sc: sc[1].kind == "chi")  # pon/kan win over chi
        return found

    def _call(self, st: _State, a: int, tile: int, seat: int, call: _Call) -> None:
        self._take_from_hand(st, seat, list(call.own))
        st.takes_at[seat] += 1
        st.events.append({"type": call.kind, "actor": seat, "target": a, "pai": _name(tile),
                          "consumed": ev.sorted_names(_name(c) for c in call.own)})
        st.actor = seat
        if call.kind == "daiminkan":
            gives = self.gives[seat]
            if st.gives_at[seat] < len(gives) and gives[st.gives_at[seat]] == 0:
                st.gives_at[seat] += 1
            self._flush_dora(st)
            st.pending_dora += 1
            st.need_draw = True
        else:
            st.need_draw = False
        st.last_draw = None

    def _nobody_draws_next(self, st: _State, a: int) -> bool:
        nxt = (a + 1) % 4
        return st.takes_at[nxt] >= len(self.takes[nxt])

    def _ron_on(self, a: int) -> bool:
        if not self.result or self.result[0] != "和了":
            return False
        return any(info[1] == a and info[0] != a for info in self.result[2::2])

    # --- the end of the round ------------------------------------------------------------

    def _finish(self, st: _State, how: str) -> _State:
        for s in range(4):
            if st.takes_at[s] != len(self.takes[s]) or st.gives_at[s] != len(self.gives[s]):
                raise _Contradiction(f"play ends ({how}) with seat {s}'s tiles left over")
        kind = self.result[0] if self.result else None
        if kind == "和了":
            self._horas(st)
        elif kind in _RESULTS:
            deltas = list(self.result[1]) if len(self.result) > 1 else [0, 0, 0, 0]
            actor = st.actor if _RESULTS[kind] == "kyushukyuhai" else None
            st.events.append(ev.ryukyoku(reason=_RESULTS[kind], deltas=deltas, actor=actor))
        else:
            raise RecordError(f"unknown round result {kind!r}")
        st.events.append({"type": "end_kyoku"})
        return st

    def _horas(self, st: _State) -> None:
        last = next((e for e in reversed(st.events) if e["type"] in ("tsumo", "dahai", "kakan")), None)
        if last is None:
            raise RecordError("a win before any tile was drawn or discarded")
        for k in range(1, len(self.result), 2):
            deltas = list(self.result[k])
            info = self.result[k + 1]
            who, target, pao = info[0], info[1], info[2]
            han, fu, yaku = _score_text(info[3:])
            st.scores = [s + d for s, d in zip(st.scores, deltas)]
            ura = [_name(u) for u in self.uras] if who in st.reached else []
            st.events.append(ev.hora(
                actor=who, target=target, pai=last["pai"], deltas=deltas, ura_markers=ura,
                scores=st.scores, han=han, fu=fu, yaku=yaku,
                pao=pao if pao != who else None))


def _score_text(items: list) -> tuple[int | None, int | None, list[list] | None]:
    """(han, fu, yaku) from ``["30符2飜2000点", "立直(1飜)", ...]`` where the record says them."""
    if not items:
        return None, None, None
    fu_match = _FU.search(str(items[0]))
    fu = int(fu_match.group(1)) if fu_match else None
    yaku: list[list] = []
    for text in items[1:]:
        text = str(text)
        m = _HAN.search(text)
        name = text[:text.index("(")] if "(" in text else text
        yid = yaku_id_from_japanese(name)
        if m is None or yid is None:
            raise RecordError(f"unknown yaku {text!r}")
        han = int(m.group(1)) if m.group(1) else YAKUMAN_HAN * (int(m.group(3)) if m.group(3) else 1)
        if han:
            yaku.append([yaku_name(yid), han])
    return (sum(h for _, h in yaku) if yaku else None), fu, (yaku or None)
