"""``python -m regressors.deal_in_check``: Eq. 20's deal-in chances of the discards made.

Oracle: Tenhou's own record: every ron on a discarder not in riichi is counted once, in the
cell of the riichi players at the table then, and the points paid are the record's deltas.
"""
from __future__ import annotations

import json
from pathlib import Path

from game.records import read_events
from regressors.deal_in_check import main

PHOENIX = sorted(str(p) for p in (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix"
                                   / "mjlog").glob("*.xml"))


def _rons(events: list[dict]) -> list[tuple[int, bool]]:
    """The points paid at each ron on a discarder not in riichi, and whether the winner was in
    riichi, from the record."""
    paid, riichi = [], set()
    for e in events:
        if e["type"] == "start_kyoku":
            riichi = set()
        elif e["type"] == "reach_accepted":
            riichi.add(e["actor"])
        elif e["type"] == "hora" and e["actor"] != e["target"] and e["target"] not in riichi:
            paid.append((-e["deltas"][e["target"]], e["actor"] in riichi))
    return paid


def test_every_ron_counted_once_with_the_points_paid(capsys):
    files = PHOENIX[:3]
    assert main(["--records", *files, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rons = [x for f in files for x in _rons(read_events(f))]
    paid = [p for p, _ in rons]
    cells = out["by_riichi_opponents"].values()
    assert sum(c["ronned"] for c in cells) == out["deal_ins"] == len(paid) > 5
    assert out["points_paid"] == round(sum(paid) / len(paid))
    for who, flag in (("riichi", True), ("not_riichi", False)):  # split by the winner's riichi
        mine = [p for p, r in rons if r == flag]
        assert out["by_ronner"][who]["deal_ins"] == len(mine) > 0
        assert out["by_ronner"][who]["points_paid"] == round(sum(mine) / len(mine))
    assert all(c["predicted"] > 0 for c in cells if c["discards"] > 50)
    assert 0.3 < sum(c["predicted"] for c in cells) / len(paid) < 3.0
    assert main(["--records", files[0], "--name", "nobody"]) == 2
