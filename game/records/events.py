"""Small builders for the canonical mjai event stream shared by the record readers.

The canonical stream is Mortal's mjai dialect (``specs/anchors.md`` section 4) with a few
fields a record may add: ``tsumogiri`` on every ``dahai``; ``deltas`` and ``scores`` on
``reach_accepted``; ``pai``, ``deltas``, ``ura_markers``, ``scores`` and, where the record
says them, ``han``, ``fu``, ``yaku`` ([[name, han], ...]) and ``pao`` on ``hora``;
``deltas`` and ``reason`` (plus ``actor`` for nine terminals) on ``ryukyoku``; ``scores``
(the record's final scores) on ``end_game`` where the record states them.

Kan dora order follows Tenhou's mjlog: ankan -> dora -> rinshan tsumo; daiminkan/kakan ->
rinshan tsumo -> dora -> dahai (the dora is not shown when the rinshan draw wins or the
kakan is robbed); a pending open-kan dora is shown at once when a further kan is declared.
"""
from __future__ import annotations

from collections.abc import Iterable

from game import tiles

WINDS = ("E", "S", "W", "N")

# Tenhou's abortive and special draws, by mjlog type / tenhou.net/6 title.
RYUKYOKU_REASONS = {
    None: "exhaustive", "yao9": "kyushukyuhai", "reach4": "suucha_riichi",
    "ron3": "sanchaho", "kaze4": "suufon_renda", "kan4": "suukaikan",
    "nm": "nagashi_mangan",
}


def name_sort_key(name: str) -> tuple[int, int]:
    return tiles.mjai_to_kind(name), int(name.endswith("r"))


def sorted_names(names: Iterable[str]) -> list[str]:
    """Tile names in the canonical order: by kind, a red five after its plain copies."""
    return sorted(names, key=name_sort_key)


def start_kyoku(*, round_no: int, honba: int, kyotaku: int, oya: int, scores: list[int],
                dora_marker: str, tehais: list[list[str]]) -> dict:
    """``start_kyoku``: ``round_no`` counts hands from East 1 = 0 (Tenhou's INIT seed)."""
    return {"type": "start_kyoku", "bakaze": WINDS[(round_no // 4) % 4],
            "dora_marker": dora_marker, "kyoku": round_no % 4 + 1, "honba": honba,
            "kyotaku": kyotaku, "oya": oya, "scores": list(scores),
            "tehais": [sorted_names(t) for t in tehais]}


def hora(*, actor: int, target: int, pai: str, deltas: list[int], ura_markers: list[str],
         scores: list[int], han: int | None = None, fu: int | None = None,
         yaku: list[list] | None = None, pao: int | None = None) -> dict:
    event = {"type": "hora", "actor": actor, "target": target, "pai": pai,
             "deltas": list(deltas), "ura_markers": list(ura_markers), "scores": list(scores)}
    if han is not None:
        event["han"] = han
    if fu is not None:
        event["fu"] = fu
    if yaku is not None:
        event["yaku"] = yaku
    if pao is not None:
        event["pao"] = pao
    return event


def ryukyoku(*, reason: str, deltas: list[int], actor: int | None = None) -> dict:
    event: dict = {"type": "ryukyoku", "reason": reason, "deltas": list(deltas)}
    if actor is not None:
        event["actor"] = actor
    return event
