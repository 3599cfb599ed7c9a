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
