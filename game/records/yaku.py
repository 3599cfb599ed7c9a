"""Tenhou's yaku numbering (ids 0..54), with the Japanese names tenhou.net/6 prints.

Both Tenhou formats name the same yaku: mjlog XML by id (``yaku="id,han,..."``, 52 dora,
53 ura dora, 54 red fives), tenhou.net/6 JSON by Japanese name (``"立直(1飜)"``). The
canonical mjai ``hora`` event carries ``yaku`` as ``[[english_name, han], ...]`` in Tenhou's
id order, yakuman counting 13 han each.
"""
from __future__ import annotations

# id -> (Japanese name as tenhou.net/6 writes it, English name used in our events)
TENHOU_YAKU: dict[int, tuple[str, str]] = {
    0: ("門前清自摸和", "menzen_tsumo"), 1: ("立直", "riichi"), 2: ("一発", "ippatsu"),
    3: ("槍槓", "chankan"), 4: ("嶺上開花", "rinshan_kaihou"), 5: ("海底摸月", "haitei"),
    6: ("河底撈魚", "houtei"), 7: ("平和", "pinfu"), 8: ("断幺九", "tanyao"),
    9: ("一盃口", "iipeikou"),
    10: ("自風 東", "seat_wind_east"), 11: ("自風 南", "seat_wind_south"),
    12: ("自風 西", "seat_wind_west"), 13: ("自風 北", "seat_wind_north"),
    14: ("場風 東", "round_wind_east"), 15: ("場風 南", "round_wind_south"),
    16: ("場風 西", "round_wind_west"), 17: ("場風 北", "round_wind_north"),
    18: ("役牌 白", "haku"), 19: ("役牌 發", "hatsu"), 20: ("役牌 中", "chun"),
    21: ("両立直", "double_riichi"), 22: ("七対子", "chiitoitsu"), 23: ("混全帯幺九", "chanta"),
    24: ("一気通貫", "ittsu"), 25: ("三色同順", "sanshoku_doujun"),
    26: ("三色同刻", "sanshoku_doukou"), 27: ("三槓子", "sankantsu"), 28: ("対々和", "toitoi"),
    29: ("三暗刻", "sanankou"), 30: ("小三元", "shousangen"), 31: ("混老頭", "honroutou"),
    32: ("二盃口", "ryanpeikou"), 33: ("純全帯幺九", "junchan"), 34: ("混一色", "honitsu"),
    35: ("清一色", "chinitsu"), 36: ("人和", "renhou"), 37: ("天和", "tenhou"),
    38: ("地和", "chiihou"), 39: ("大三元", "daisangen"), 40: ("四暗刻", "suuankou"),
    41: ("四暗刻単騎", "suuankou_tanki"), 42: ("字一色", "tsuuiisou"),
    43: ("緑一色", "ryuuiisou"), 44: ("清老頭", "chinroutou"), 45: ("九蓮宝燈", "chuuren"),
    46: ("純正九蓮宝燈", "junsei_chuuren"), 47: ("国士無双", "kokushi"),
    48: ("国士無双１３面", "kokushi_13"), 49: ("大四喜", "daisuushii"),
    50: ("小四喜", "shousuushii"), 51: ("四槓子", "suukantsu"), 52: ("ドラ", "dora"),
    53: ("裏ドラ", "ura_dora"), 54: ("赤ドラ", "aka_dora"),
}

YAKUMAN_HAN = 13

_BY_JAPANESE = {ja: i for i, (ja, _) in TENHOU_YAKU.items()}
# Spellings seen in tenhou.net/6 files besides the canonical ones.
_BY_JAPANESE.update({
    "Riichi": 1, "Dora": 52, "Ura Dora": 53, "Red Five": 54, "Aka Dora": 54,
    "国士無双13面": 48, "国士無双十三面待ち": 48, "純正九蓮宝燈": 46, "四暗刻単騎待ち": 41,
    "ダブル立直": 21,
})


def yaku_name(tenhou_id: int) -> str:
    """English name of a Tenhou yaku id (``KeyError`` for an unknown id)."""
    return TENHOU_YAKU[tenhou_id][1]


def yaku_id_from_japanese(name: str) -> int | None:
    """Tenhou id of a yaku as tenhou.net/6 names it, ``None`` when unknown."""
    return _BY_JAPANESE.get(name.strip())
