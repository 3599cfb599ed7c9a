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
from game.errors import TileError  # noqa: E402
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
    """Canonical mjai events of one Tenhou mjlog XML game (see :mod:`game.records.events`)."""
    tags = parse_tags(text, path)
    reader = _MjlogReader(path)
    for index, (name, attrs) in enumerate(tags):
        try:
            reader.feed(name, attrs)
        except (TileError, ValueError, KeyError, IndexError) as exc:
            msg = exc.args[0] if isinstance(exc, (TileError, RecordError)) else f"bad <{name}>: {exc!r}"
            raise RecordError(str(msg), path=path, position=f"tag {index} <{name}>") from None
        except RecordError as exc:
            raise RecordError(str(exc), path=path, position=f"tag {index} <{name}>") from None
    return reader.finish(len(tags))


def _ints(value: str) -> list[int]:
    return [int(v) for v in value.split(",") if v.strip() != ""]


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
            self._meld(int(attrs["who"]), int(attrs["m"]))
        elif name == "REACH":
            self._reach(attrs)
        elif name == "DORA":
            self._need_kyoku("DORA")
            self.events.append({"type": "dora", "dora_marker": _name(int(attrs["hai"]))})
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
        seed = _ints(attrs["seed"])
        hands = [[tiles.check_id(t) for t in _ints(attrs[f"hai{s}"])] for s in range(4)]
        if any(len(h) != 13 for h in hands):
            raise RecordError("a starting hand does not hold 13 tiles")
        self.events.append(ev.start_kyoku(
            round_no=seed[0], honba=seed[1], kyotaku=seed[2], oya=int(attrs["oya"]),
            scores=[100 * s for s in _ints(attrs["ten"])], dora_marker=_name(seed[5]),
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
        who = int(attrs["who"])
        if attrs.get("step") == "1":
            self.events.append({"type": "reach", "actor": who})
            return
        deltas = [0, 0, 0, 0]
        deltas[who] = -1000
        event = {"type": "reach_accepted", "actor": who, "deltas": deltas}
        if "ten" in attrs:
            event["scores"] = [100 * s for s in _ints(attrs["ten"])]
        self.events.append(event)

    def _agari(self, attrs: dict[str, str]) -> None:
        if self.in_kyoku != _AFTER_AGARI:  # a second AGARI in a row is a double ron
            self._need_kyoku("AGARI")
        sc = _ints(attrs["sc"])
        before, deltas = [100 * s for s in sc[0::2]], [100 * d for d in sc[1::2]]
        ten = _ints(attrs["ten"])
        yaku: list[list] = []
        pairs = _ints(attrs.get("yaku", ""))
        for i in range(0, len(pairs), 2):
            if pairs[i + 1] > 0:
                yaku.append([yaku_name(pairs[i]), pairs[i + 1]])
        for y in _ints(attrs.get("yakuman", "")):
            yaku.append([yaku_name(y), YAKUMAN_HAN])
        who, from_who = int(attrs["who"]), int(attrs["fromWho"])
        pao = int(attrs["paoWho"]) if "paoWho" in attrs else None
        self.events.append(ev.hora(
            actor=who, target=from_who, pai=_name(int(attrs["machi"])), deltas=deltas,
            ura_markers=[_name(t) for t in _ints(attrs.get("doraHaiUra", ""))],
            scores=[b + d for b, d in zip(before, deltas)], han=sum(h for _, h in yaku),
            fu=ten[0], yaku=yaku, pao=pao))
        self._maybe_end(attrs)

    def _ryuukyoku(self, attrs: dict[str, str]) -> None:
        self._need_kyoku("RYUUKYOKU")
        sc = _ints(attrs.get("sc", "0,0,0,0,0,0,0,0"))
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
            self.final_scores = [int(round(100 * float(v))) for v in attrs["owari"].split(",")[0::2]]

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
