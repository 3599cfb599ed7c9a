"""The phoenix games cnn-bot never trains on, so that its agreement with real players is
measured on games it has not seen (issue 10).

Every third of the 42 phoenix mjlog files of ``../shared/data/phoenix/mjlog`` in name order
(14 games, 36 % of the discard decisions) is held out. A game is named by its file stem, so the
tenhou.net/6 copy of a held-out game (same stem) is held out too.
"""
from __future__ import annotations

from pathlib import Path

PHOENIX_MJLOG = Path(__file__).resolve().parents[2] / "shared" / "data" / "phoenix" / "mjlog"
HELDOUT_PHOENIX = frozenset({
    "gimite__test",
    "mjlog2json__2019081518gm-00a9-0000-cce9d00c",
    "mjx__2010081709gm-00a9-0000-fe3371ad",
    "mjx__2010112714gm-00a9-0000-d497e395",
    "mjx__2011020414gm-00a9-0000-ef18f336",
    "mjx__2011020613gm-00a9-0000-3774f8d1",
    "mjx__2019082700gm-00a9-0000-63d1f136",
    "mjx__encdec-chankan-ippatsu",
    "mjx__encdec-four-concealed-pons",
    "mjx__encdec-game-end",
    "mjx__encdec-nowinner-multi-top",
    "mjx__encdec-rinshan-fu",
    "mjx__encdec-tenhou-false-pos",
    "mjx__pao-tsumo",
})


def game_name(path: str | Path) -> str:
    """A record's game name: its file name without the record suffixes."""
    name = Path(path).name
    for suffix in (".gz", ".xml", ".mjlog", ".json", ".mjson", ".jsonl"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def is_heldout(path: str | Path) -> bool:
    return game_name(path) in HELDOUT_PHOENIX


def split_heldout(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """``(training, held out)`` of a list of record files."""
    held = [p for p in paths if is_heldout(p)]
    return [p for p in paths if not is_heldout(p)], held
