"""Tenhou mjlog XML (viewer tenhou.net/5) into the canonical mjai event stream.

Format notes: ``specs/anchors.md`` section 7.1. The root ``<mjloggm>`` holds flat,
order-significant tags: ``GO``/``UN``/``TAIKYOKU`` (header), then per hand ``INIT``, draws
``T/U/V/W<id>``, discards ``D/E/F/G<id>``, calls ``N who m``, ``REACH who step``,
``DORA hai``, ``AGARI`` / ``RYUUKYOKU`` (Tenhou's own scoring in ``sc`` and ``owari``),
``BYE who`` / ``UN`` for disconnects and reconnects.
"""
from __future__ import annotations

from typing import Any

from game.errors import RecordError

MELD_TYPES = ("chi", "pon", "kakan", "daiminkan", "ankan", "kita")


def decode_meld(code: int, who: int | None = None) -> dict[str, Any]:
    """Decode the packed 16-bit ``m`` attribute of an mjlog ``<N>`` (or ``<AGARI m=...>``).

    Returns a dict:

    * ``type``: the mjai meld type, one of ``chi pon kakan daiminkan ankan`` (``kita`` for
      a sanma north, which 4-player records never hold);
    * ``tiles``: the 136-ids of every tile of the meld, ascending (3 for chi/pon, 4 for kans,
      1 for kita);
    * ``called``: the 136-id taken from another seat (for kakan: the tile the original pon
      took; for ankan: ``None``);
    * ``added``: for kakan, the 136-id added to the pon (mjai's ``pai``), else ``None``;
    * ``consumed``: the 136-ids the caller took from the hand for the mjai event: ``tiles``
      minus ``called`` (chi/pon/daiminkan), minus ``added`` (kakan), all four (ankan);
    * ``from``: the relative source seat, 0 self, 1 shimocha, 2 toimen, 3 kamicha
      (``target = (who + from) % 4``);
    * ``target``: the absolute source seat when ``who`` is given (``None`` for ankan/kita or
      when ``who`` is not given).

    Raises :class:`RecordError` for a code that is not a meld.
    """
    code = int(code)
    if not 0 <= code < 1 << 16:
        raise RecordError(f"meld code {code} is outside 0..65535")
    rel = code & 3
    if code & 0x4:
        meld = _decode_chi(code)
    elif code & 0x18:
        meld = _decode_pon_or_kakan(code)
    elif code & 0x20:
        meld = _decode_kita(code)
    else:
        meld = _decode_kan(code, rel)
    if meld["type"] in ("chi", "pon", "kakan", "daiminkan") and rel == 0:
        raise RecordError(f"meld code {code} ({meld['type']}) names no source seat")
    if meld["type"] == "chi" and rel != 3:
        raise RecordError(f"meld code {code}: a chi must come from kamicha (from={rel})")
    meld["from"] = rel
    own = meld["type"] in ("ankan", "kita")
    meld["target"] = None if (who is None or own) else (int(who) + rel) % 4
    return meld


def _decode_chi(code: int) -> dict[str, Any]:
    base = code >> 10
    called_pos = base % 3
    base //= 3
    suit, low = divmod(base, 7)
    if suit > 2:
        raise RecordError(f"meld code {code}: chi outside the suits")
    first_kind = suit * 9 + low
    copies = ((code >> 3) & 3, (code >> 5) & 3, (code >> 7) & 3)
    tiles = [4 * (first_kind + i) + copies[i] for i in range(3)]
    called = tiles[called_pos]
    return {"type": "chi", "tiles": tiles, "called": called, "added": None,
            "consumed": [t for t in tiles if t != called]}


def _decode_pon_or_kakan(code: int) -> dict[str, Any]:
    unused_copy = (code >> 5) & 3
    base = code >> 9
    called_pos = base % 3
    kind = base // 3
    if kind >= 34:
        raise RecordError(f"meld code {code}: pon of tile kind {kind}")
    four = [4 * kind + c for c in range(4)]
    other = four[unused_copy]
    three = [t for t in four if t != other]
    called = three[called_pos]
    if code & 0x8:
        return {"type": "pon", "tiles": three, "called": called, "added": None,
                "consumed": [t for t in three if t != called]}
    return {"type": "kakan", "tiles": four, "called": called, "added": other,
            "consumed": three}


def _decode_kita(code: int) -> dict[str, Any]:
    tile = code >> 8
    return {"type": "kita", "tiles": [tile], "called": None, "added": None, "consumed": [tile]}


def _decode_kan(code: int, rel: int) -> dict[str, Any]:
    tile = code >> 8
    if tile >= 136:
        raise RecordError(f"meld code {code}: kan of tile id {tile}")
    four = [tile - tile % 4 + c for c in range(4)]
    if rel == 0:
        return {"type": "ankan", "tiles": four, "called": None, "added": None, "consumed": four}
    return {"type": "daiminkan", "tiles": four, "called": tile, "added": None,
            "consumed": [t for t in four if t != tile]}


# --- reading a whole record ---------------------------------------------------------------

import re  # noqa: E402  (kept beside the reader that uses it)
from urllib.parse import unquote  # noqa: E402

from game import tiles  # noqa: E402
from game.errors import MahjongError  # noqa: E402
from game.records import events as ev  # noqa: E402
from game.records.yaku import YAKUMAN_HAN, yaku_name  # noqa: E402

_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)((?:\s+[A-Za-z0-9_]+\s*=\s*\"[^\"]*\")*)\s*(/?)>")
_ATTR = re.compile(r"([A-Za-z0-9_]+)\s*=\s*\"([^\"]*)\"")
_DRAW = "TUVW"
_AFTER_AGARI = "after_agari"
_DISCARD = "DEFG"


def parse_tags(text: str, path: str | None = None) -> list[tuple[str, dict[str, str]]]:
    """The flat list of ``(tag name, attributes)`` under ``<mjloggm>``, in file order.

    Raises :class:`RecordError` naming the tag index for text that is not a tag, and for a
    file that stops before ``</mjloggm>`` (a truncated download).
    """
    out: list[tuple[str, dict[str, str]]] = []
    pos = 0
    closed = False
    for match in _TAG.finditer(text):
        gap = text[pos:match.start()]
        if gap.strip() and not gap.strip().startswith("<?xml"):
            raise RecordError(f"unexpected text {gap.strip()[:30]!r}", path=path,
                              position=f"tag {len(out)}")
        pos = match.end()
        closing, name, attrs = match.group(1), match.group(2), match.group(3)
        if closing:
            if name == "mjloggm":
                closed = True
                break
            continue
        if name == "mjloggm":
            continue
        out.append((name, dict(_ATTR.findall(attrs))))
    rest = text[pos:].strip()
    if not closed:
        where = f"tag {len(out)}"
        what = f"unreadable text {rest[:30]!r}" if rest else "file ends before </mjloggm>"
        raise RecordError(f"truncated or malformed mjlog: {what}", path=path, position=where)
    return out


def read_mjlog(text: str, path: str | None = None) -> list[dict]:
    """Canonical mjai events of one Tenhou mjlog XML game (see :mod:`game.records.events`).

    Raises :class:`RecordError` naming the file and the tag (``tag 12 <N>``) for a missing
    or malformed attribute, a tile id or meld code that is none, play outside a hand; every
    event made is checked as the mjai reader checks its lines.
    """
    tags = parse_tags(text, path)
    reader = _MjlogReader(path)
    for index, (name, attrs) in enumerate(tags):
        made = len(reader.events)
        try:
            reader.feed(name, attrs)
        except MahjongError as exc:  # a TileError or RecordError without a position
            raise RecordError(str(exc), path=path, position=f"tag {index} <{name}>") from None
        ev.check_made(reader.events[made:], path, f"tag {index} <{name}>")
    return reader.finish(len(tags))


def _ints(value: str) -> list[int]:
    out = []
    for v in value.split(","):
        v = v.strip()
        if v == "":
            continue
        if not re.fullmatch(r"-?\d{1,9}", v):
            raise RecordError(f"{value[:40]!r} is not a list of integers")
        out.append(int(v))
    return out


def _int(attrs: dict[str, str], key: str, lo: int = -10**7, hi: int = 10**7) -> int:
    """Attribute ``key`` as one integer in lo..hi, else RecordError naming it."""
    if key not in attrs:
        raise RecordError(f"no attribute {key!r}")
    values = _ints(attrs[key])
    if len(values) != 1 or not lo <= values[0] <= hi:
        raise RecordError(f"{key}={attrs[key][:40]!r} is not an integer in {lo}..{hi}")
    return values[0]


def _list(attrs: dict[str, str], key: str, n: int | None = None, default: str | None = None) -> list[int]:
    """Attribute ``key`` as a list of integers (``n`` of them when given), else RecordError."""
    if key not in attrs and default is None:
        raise RecordError(f"no attribute {key!r}")
    values = _ints(attrs.get(key, default or ""))
    if n is not None and len(values) != n:
        raise RecordError(f"{key}={attrs[key][:40]!r} does not hold {n} integers")
    return values


def _yaku(tenhou_id: int) -> str:
    try:
        return yaku_name(tenhou_id)
    except KeyError:
        raise RecordError(f"unknown yaku id {tenhou_id}") from None


def _name(tile_id: int) -> str:
    return tiles.id_to_mjai(tile_id)


class _MjlogReader:
    """Turns mjlog tags into events, one tag at a time."""

    def __init__(self, path: str | None):
        self.path = path
        self.events: list[dict] = []
        self.names = ["", "", "", ""]
        self.last_draw: list[int | None] = [None] * 4
        self.in_kyoku: bool | str = False
        self.last_actor: int | None = None
        self.final_scores: list[int] | None = None
        self.started = False

    def _start_game(self) -> None:
        if not self.started:
            self.events.append({"type": "start_game", "names": list(self.names)})
            self.started = True

    def feed(self, name: str, attrs: dict[str, str]) -> None:
        if self.in_kyoku == _AFTER_AGARI and name not in ("AGARI", "BYE", "UN"):
            self._close_pending()
        if name[0] in _DRAW and name[1:].isdigit():
            self._draw(_DRAW.index(name[0]), int(name[1:]))
        elif name[0] in _DISCARD and name[1:].isdigit():
            self._discard(_DISCARD.index(name[0]), int(name[1:]))
        elif name == "UN" and not self.started:
            for seat in range(4):
                self.names[seat] = unquote(attrs.get(f"n{seat}", ""))
        elif name == "INIT":
            self._init(attrs)
        elif name == "N":
            self._meld(_int(attrs, "who", 0, 3), _int(attrs, "m", 0, 65535))
        elif name == "REACH":
            self._reach(attrs)
        elif name == "DORA":
            self._need_kyoku("DORA")
            self.events.append({"type": "dora", "dora_marker": _name(_int(attrs, "hai", 0, 135))})
        elif name == "AGARI":
            self._agari(attrs)
        elif name == "RYUUKYOKU":
            self._ryuukyoku(attrs)
        # SHUFFLE, GO, TAIKYOKU, BYE and a reconnecting UN change nothing on the table:
        # a disconnected seat keeps drawing and discarding in the log (Tenhou plays for it).

    def _need_kyoku(self, what: str) -> None:
        if self.in_kyoku is not True:
            raise RecordError(f"{what} outside a hand (no INIT before it)")

    def _init(self, attrs: dict[str, str]) -> None:
        self._start_game()
        if self.in_kyoku:
            raise RecordError("INIT before the previous hand ended")
        seed = _list(attrs, "seed", 6)
        hands = [[tiles.check_id(t) for t in _list(attrs, f"hai{s}")] for s in range(4)]
        if any(len(h) != 13 for h in hands):
            raise RecordError("a starting hand does not hold 13 tiles")
        self.events.append(ev.start_kyoku(
            round_no=seed[0], honba=seed[1], kyotaku=seed[2], oya=_int(attrs, "oya", 0, 3),
            scores=[100 * s for s in _list(attrs, "ten", 4)], dora_marker=_name(seed[5]),
            tehais=[[_name(t) for t in h] for h in hands]))
        self.last_draw = [None] * 4
        self.in_kyoku = True

    def _draw(self, seat: int, tile_id: int) -> None:
        self._need_kyoku("draw")
        self.last_draw[seat] = tiles.check_id(tile_id)
        self.last_actor = seat
        self.events.append({"type": "tsumo", "actor": seat, "pai": _name(tile_id)})

    def _discard(self, seat: int, tile_id: int) -> None:
        self._need_kyoku("discard")
        tiles.check_id(tile_id)
        self.events.append({"type": "dahai", "actor": seat, "pai": _name(tile_id),
                            "tsumogiri": tile_id == self.last_draw[seat]})
        self.last_draw = [None] * 4
        self.last_actor = seat

    def _meld(self, who: int, code: int) -> None:
        self._need_kyoku("N")
        meld = decode_meld(code, who)
        kind = meld["type"]
        consumed = ev.sorted_names(_name(t) for t in meld["consumed"])
        if kind in ("chi", "pon", "daiminkan"):
            event = {"type": kind, "actor": who, "target": meld["target"],
                     "pai": _name(meld["called"]), "consumed": consumed}
        elif kind == "kakan":
            event = {"type": "kakan", "actor": who, "pai": _name(meld["added"]),
                     "consumed": consumed}
        elif kind == "ankan":
            event = {"type": "ankan", "actor": who, "consumed": consumed}
        else:
            raise RecordError("kita (three-player north) in a four-player record")
        self.last_draw = [None] * 4
        self.last_actor = who
        self.events.append(event)

    def _reach(self, attrs: dict[str, str]) -> None:
        self._need_kyoku("REACH")
        who = _int(attrs, "who", 0, 3)
        if attrs.get("step") == "1":
            self.events.append({"type": "reach", "actor": who})
            return
        deltas = [0, 0, 0, 0]
        deltas[who] = -1000
        event = {"type": "reach_accepted", "actor": who, "deltas": deltas}
        if "ten" in attrs:
            event["scores"] = [100 * s for s in _list(attrs, "ten", 4)]
        self.events.append(event)

    def _agari(self, attrs: dict[str, str]) -> None:
        if self.in_kyoku != _AFTER_AGARI:  # a second AGARI in a row is a double ron
            self._need_kyoku("AGARI")
        sc = _list(attrs, "sc", 8)
        before, deltas = [100 * s for s in sc[0::2]], [100 * d for d in sc[1::2]]
        ten = _list(attrs, "ten")
        if not ten:
            raise RecordError("ten='' names no fu")
        yaku: list[list] = []
        pairs = _list(attrs, "yaku", default=",")
        if len(pairs) % 2:
            raise RecordError(f"yaku={attrs['yaku'][:40]!r} is not yaku and han pairs")
        for i in range(0, len(pairs), 2):
            if pairs[i + 1] > 0:
                yaku.append([_yaku(pairs[i]), pairs[i + 1]])
        for y in _list(attrs, "yakuman", default=","):
            yaku.append([_yaku(y), YAKUMAN_HAN])
        who, from_who = _int(attrs, "who", 0, 3), _int(attrs, "fromWho", 0, 3)
        pao = _int(attrs, "paoWho", 0, 3) if "paoWho" in attrs else None
        self.events.append(ev.hora(
            actor=who, target=from_who, pai=_name(_int(attrs, "machi", 0, 135)), deltas=deltas,
            ura_markers=[_name(t) for t in _list(attrs, "doraHaiUra", default=",")],
            scores=[b + d for b, d in zip(before, deltas)], han=sum(h for _, h in yaku),
            fu=ten[0], yaku=yaku, pao=pao))
        self._maybe_end(attrs)

    def _ryuukyoku(self, attrs: dict[str, str]) -> None:
        self._need_kyoku("RYUUKYOKU")
        sc = _list(attrs, "sc", 8, default="0,0,0,0,0,0,0,0")
        kind = attrs.get("type")
        if kind not in ev.RYUKYOKU_REASONS:
            raise RecordError(f"unknown RYUUKYOKU type {kind!r}")
        actor = self.last_actor if kind == "yao9" else None
        self.events.append(ev.ryukyoku(reason=ev.RYUKYOKU_REASONS[kind],
                                       deltas=[100 * d for d in sc[1::2]], actor=actor))
        self.events.append({"type": "end_kyoku"})
        self.in_kyoku = False
        self._owari(attrs)

    def _maybe_end(self, attrs: dict[str, str]) -> None:
        # Several AGARI in a row are a double/triple ron: end_kyoku waits for the next tag.
        self.in_kyoku = _AFTER_AGARI
        self._owari(attrs)

    def _close_pending(self) -> None:
        if self.in_kyoku == _AFTER_AGARI:
            self.events.append({"type": "end_kyoku"})
            self.in_kyoku = False

    def _owari(self, attrs: dict[str, str]) -> None:
        if "owari" in attrs:
            values = attrs["owari"].split(",")
            if len(values) != 8 or not all(re.fullmatch(r"-?\d{1,6}(\.\d+)?", v.strip()) for v in values):
                raise RecordError(f"owari={attrs['owari'][:40]!r} is not four scores and four points")
            self.final_scores = [int(round(100 * float(v))) for v in values[0::2]]

    def finish(self, n_tags: int) -> list[dict]:
        self._close_pending()
        if not self.started:
            raise RecordError("no hand in the record (no INIT)", path=self.path,
                              position=f"tag {n_tags}")
        if self.in_kyoku:
            raise RecordError("record ends inside a hand", path=self.path,
                              position=f"tag {n_tags}")
        end: dict = {"type": "end_game"}
        if self.final_scores is not None:
            end["scores"] = self.final_scores
        self.events.append(end)
        return self.events
