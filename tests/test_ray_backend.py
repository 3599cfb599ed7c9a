"""``--backend ray`` (player/ray_backend.py) of evaluate and selfplay, on a local Ray of two
CPUs: the same games as the local backend for one seed (every field of ``results.jsonl``
but the timings, the same log bytes), a resumed Ray run, and the error without the extra.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from player import evaluate, selfplay

TIMINGS = ("wall_s", "cpu_s")
# random against three efficiency copies: games that end in different orders.
MATCH = ["--player", "random", "--vs", "efficiency", "--seed", "11", "--workers", "2", "--save-logs"]


def _records(out: Path) -> list[dict]:
    return sorted((json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()),
                  key=lambda r: r["game"])


def _untimed(recs: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in TIMINGS} for r in recs]


def _logs(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.mjson.gz"))}


def test_without_the_extra_ray_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` meets when not installed
    out = tmp_path / "run"
    assert evaluate.main(["--out", str(out), *MATCH, "--games", "4", "--backend", "ray"]) == 2
    assert selfplay.main(["--agent", "random", "--games", "1", "--out", str(out),
                          "--backend", "ray"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{cmd}: error: --backend ray: install the ray extra: pip install -e '.[ray]'"
                   for cmd in ("evaluate", "selfplay")]
    assert not out.exists()


def _no_local_pool(*args):
    raise AssertionError("--backend ray played on the local pool")


def test_selfplay_on_ray_writes_the_local_logs(tmp_path, monkeypatch):
    pytest.importorskip("ray")
    # Run first in this file: Ray is not up yet, so the backend starts a Ray of --workers
    # CPUs itself and shuts it down.
    args = ["--agent", "random", "--games", "3", "--seed", "5", "--workers", "2"]
    assert selfplay.main([*args, "--out", str(tmp_path / "local")]) == 0
    monkeypatch.setattr(selfplay, "_local_imap", _no_local_pool)
    assert selfplay.main([*args, "--out", str(tmp_path / "ray"), "--backend", "ray"]) == 0
    local, on_ray = _logs(tmp_path / "local"), _logs(tmp_path / "ray")
    assert len(local) == 3 and on_ray == local


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()


def test_a_resumed_ray_run_plays_the_local_games(local_ray, tmp_path, capsys, monkeypatch):
    local = tmp_path / "local"
    # in this process: a pool forked while Ray's threads run can hang in its children (seen in CI)
    assert evaluate.main(["--out", str(local), *MATCH, "--games", "8", "--workers", "1"]) == 0
    expected = _records(local)
    assert all(r[k] > 0 for r in expected for k in TIMINGS)
    assert len({tuple(r["ranks"]) for r in expected}) > 1  # not a degenerate match
    monkeypatch.setattr(selfplay, "_local_imap", _no_local_pool)

    part = tmp_path / "ray"
    assert evaluate.main(["--out", str(part), *MATCH, "--games", "4", "--backend", "ray"]) == 0
    results = part / "results.jsonl"
    lines = results.read_text().splitlines()
    # Lines of an older version, without timings, and a last line cut by a kill.
    old = [json.dumps({k: v for k, v in json.loads(x).items() if k not in TIMINGS}) for x in lines]
    results.write_text("".join(x + "\n" for x in old[:3]) + old[3][:40])
    capsys.readouterr()
    assert evaluate.main(["--out", str(part), *MATCH, "--games", "8", "--backend", "ray",
                          "--resume"]) == 0
    assert "resuming, 3 of 8 games" in capsys.readouterr().err

    got = _records(part)
    assert _untimed(got) == _untimed(expected)
    assert sum(all(k in r for k in TIMINGS) for r in got) == 5  # the games played on resume
    assert _logs(part / "logs") == _logs(local / "logs") and len(_logs(local / "logs")) == 8
    summary = json.loads((part / "summary.json").read_text())
    assert summary == json.loads((local / "summary.json").read_text())
