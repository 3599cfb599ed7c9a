"""Run directories of ``player.evaluate`` and ``player.selfplay`` (``player/rundir.py``):
resuming only the same run (broken files, changed models), seeds in range, and the walls
of the two commands kept apart.

Every bad input is an exit 2 with one stderr line naming the file (and line), and leaves
the files already written byte for byte as they were.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from game.records import read_events
from player import evaluate, registry, selfplay
from player.rundir import model_versions

RUN = ["--player", "random", "--vs", "tsumogiri", "--seed", "3", "--workers", "1"]


@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    """A finished run of 4 games (one block), copied by each test that breaks it."""
    out = tmp_path_factory.mktemp("base") / "run"
    assert evaluate.main(["--out", str(out), *RUN, "--games", "4"]) == 0
    return out


def _snapshot(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def _one_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def _lines(text: str) -> list[dict]:
    return [json.loads(x) for x in text.splitlines()]


def _with(rec: dict, **changes) -> str:
    return json.dumps({**rec, **changes})


# Each case: how to break the run directory, and what the one error line must say
# (``{run}`` / ``{results}`` stand for the two files' paths).
def _run_json(text):
    return lambda out, recs: (out / "run.json").write_text(text)


def _results(make):
    return lambda out, recs: (out / "results.jsonl").write_text("".join(x + "\n" for x in make(recs)))


def _drop_key(key):
    def edit(out, recs):
        run = json.loads((out / "run.json").read_text())
        del run[key]
        (out / "run.json").write_text(json.dumps(run))
    return edit


CASES = {
    "run.json not JSON": (_run_json("{broken"), "{run}: unreadable run description (Expecting"),
    "run.json a list": (_run_json("[1, 2]"), "{run}: the run description is a list, not a JSON object"),
    "run.json without models": (_drop_key("models"), "{run}: the run description lacks models"),
    "run.json of an older evaluate": (_drop_key("walls"), "{run}: a run of an older evaluate"),
    "run.json removed": (lambda out, recs: (out / "run.json").unlink(), "holds results but no run.json"),
    "a line not JSON": (_results(lambda r: [json.dumps(r[0]), "{not json", *map(json.dumps, r[1:])]),
                        "{results}:line 2: unreadable result (Expecting"),
    "a line without ranks": (_results(lambda r: [json.dumps({k: v for k, v in r[0].items() if k != "ranks"}),
                                                 *map(json.dumps, r[1:])]),
                             "{results}:line 1: unreadable result (missing ranks)"),
    "ranks that are not places": (_results(lambda r: [_with(r[0], ranks=[1, 1, 2, 3]), *map(json.dumps, r[1:])]),
                                  "{results}:line 1: unreadable result (ranks [1, 1, 2, 3] are not the places 1..4)"),
    "a seed that is text": (_results(lambda r: [_with(r[0], seed="x"), *map(json.dumps, r[1:])]),
                            "{results}:line 1: unreadable result (seed 'x' is not an integer)"),
    "a game index out of range": (_results(lambda r: [*map(json.dumps, r[:2]), _with(r[2], game=-5), json.dumps(r[3])]),
                                  "{results}:line 3: game index -5 out of range 0..7 (--games 8)"),
    "a game beyond --games": (_results(lambda r: [_with(r[0], game=12, block=3), *map(json.dumps, r[1:])]),
                              "{results}:line 1: game index 12 out of range 0..7 (--games 8)"),
    "a game in the wrong seat": (_results(lambda r: [json.dumps(r[0]), _with(r[1], player_seat=3),
                                                     *map(json.dumps, r[2:])]),
                                 "{results}:line 2: game 1 has block 0 seat 3, expected block 0 seat 1"),
    "a wall time that is text": (_results(lambda r: [_with(r[0], wall_s="1.5"), *map(json.dumps, r[1:])]),
                                 "{results}:line 1: unreadable result (wall_s '1.5' is not a number of seconds)"),
    "another run's walls": (_results(lambda r: [_with(r[0], seed=r[0]["seed"] + 1), *map(json.dumps, r[1:])]),
                            "{results}:line 1: game 0 has the wall seed"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_resume_of_a_broken_run_exits_2_and_writes_nothing(base_run, tmp_path, capsys, case):
    out = tmp_path / "run"
    shutil.copytree(base_run, out)
    recs = sorted(_lines((out / "results.jsonl").read_text()), key=lambda r: r["game"])
    edit, expected = CASES[case]
    edit(out, recs)
    before = _snapshot(out)
    capsys.readouterr()
    assert evaluate.main(["--out", str(out), *RUN, "--games", "8", "--resume"]) == 2
    line = _one_error(capsys)
    assert line.startswith("evaluate: error: ")
    assert expected.format(run=out / "run.json", results=out / "results.jsonl") in line
    assert _snapshot(out) == before


def test_resume_after_the_models_changed_is_refused_unless_allowed(tmp_path, capsys, monkeypatch):
    # The random agent given a model file of its own: the run must notice it changing.
    model = tmp_path / "weights.bin"
    model.write_bytes(b"version 1")
    monkeypatch.setitem(registry.MODEL_FILES, "random", lambda opts: [model])
    out = tmp_path / "run"
    assert evaluate.main(["--out", str(out), *RUN, "--games", "4"]) == 0
    first = json.loads((out / "run.json").read_text())["models"]

    model.write_bytes(b"version 2")
    before = _snapshot(out)
    capsys.readouterr()
    assert evaluate.main(["--out", str(out), *RUN, "--games", "8", "--resume"]) == 2
    assert _one_error(capsys) == (
        f"evaluate: error: {out / 'run.json'}: model files changed since this run began "
        f"(random: {model}); choose another --out, or pass --allow-model-change to go on with "
        f"the new ones")
    assert _snapshot(out) == before
    # An unchanged model resumes without a word; a changed one with the override, on record.
    assert evaluate.main(["--out", str(out), *RUN, "--games", "8", "--resume",
                          "--allow-model-change"]) == 0
    assert f"warning: {out / 'run.json'}: going on with changed models (random: {model})" in capsys.readouterr().err
    run = json.loads((out / "run.json").read_text())
    assert run["earlier_models"] == [first] and run["models"] != first
    assert len(_lines((out / "results.jsonl").read_text())) == 8

    # selfplay: the same check on its own run.json.
    sp = tmp_path / "sp"
    assert selfplay.main(["--agent", "random", "--games", "1", "--out", str(sp), "--workers", "1"]) == 0
    model.write_bytes(b"version 3")
    capsys.readouterr()
    assert selfplay.main(["--agent", "random", "--games", "2", "--out", str(sp), "--workers", "1"]) == 2
    assert "model files changed" in _one_error(capsys)
    assert len(list(sp.glob("*.mjson.gz"))) == 1


_OPENED: list[str] | None = None


def _audit(event: str, args: tuple) -> None:
    if _OPENED is not None and event == "open" and isinstance(args[0], (str, Path)):
        _OPENED.append(str(Path(args[0]).resolve()))


@pytest.mark.parametrize("agent", ["mdp", "mdp:tie=0", "mdp:tie=0,far_by=cnn", "mdp:table=auto", "mdp:table=cnn-bot",
                                   "cnn-bot", "efficiency"])
def test_model_files_are_the_files_an_agent_opens(agent):
    # Independent of the registry's list: record every file opened while the agent is built.
    global _OPENED
    sys.addaudithook(_audit)  # a hook cannot be removed; it records only while _OPENED is a list
    _OPENED = []
    try:
        registry.make_agent(agent)
    finally:
        opened, _OPENED = _OPENED, None
    root = Path(registry.__file__).resolve().parents[1]
    models = {p for p in opened if p.startswith(str(root)) and "/models/" in p}
    assert models == {str(p.resolve()) for p in registry.model_files(agent)}
    assert set(model_versions([agent])[agent]) == {str(Path(p).relative_to(root)) for p in models}


def test_mdp_reads_its_estimators_and_scenarios_from_the_files_named(tmp_path, capsys):
    from regressors.estimators import DEFAULT_DIR, FILES
    from regressors.scenarios import DEFAULT_PATH

    est = tmp_path / "est"
    shutil.copytree(DEFAULT_DIR, est)
    hazard = json.loads((est / "hazard.json").read_text())
    hazard["other"]["intercept"] = [hazard["other"]["intercept"][0] + 1.0]
    (est / "hazard.json").write_text(json.dumps(hazard))
    scen = shutil.copy(DEFAULT_PATH, tmp_path / "scenarios.json")
    spec = f"mdp:tie=0,est_dir={est},scenarios_file={scen}"
    global _OPENED
    sys.addaudithook(_audit)
    _OPENED = []
    try:
        agent = registry.make_agent(spec)
    finally:
        opened, _OPENED = _OPENED, None
    # every estimator comes from est_dir, none from the shipped folder, and the run records them
    wanted = {str((est / fname).resolve()) for fname, _ in FILES.values()} | {str(Path(scen).resolve())}
    assert wanted <= set(opened)
    shipped = {str((DEFAULT_DIR / fname).resolve()) for fname, _ in FILES.values()} | {str(DEFAULT_PATH.resolve())}
    assert not shipped & set(opened)
    assert {str(p.resolve()) for p in registry.model_files(spec)} >= wanted
    assert agent.est.hazard.other.intercept[0] == pytest.approx(hazard["other"]["intercept"][0])
    assert registry.make_agent("mdp:tie=0").est.hazard.other.intercept[0] != agent.est.hazard.other.intercept[0]
    # a folder without the files is bad input: exit 2, nothing written
    out = tmp_path / "run"
    assert evaluate.main(["--player", f"mdp:est_dir={tmp_path / 'none'}", "--vs", "random", "--games", "4",
                          "--workers", "1", "--out", str(out)]) == 2
    assert str(tmp_path / "none") in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("seed", ["-1", "4294967296"])
def test_seed_out_of_range_exits_2_and_writes_nothing(tmp_path, capsys, seed):
    out = tmp_path / "run"
    for cmd, args in ((evaluate.main, ["--player", "random", "--vs", "random"]),
                      (selfplay.main, ["--agent", "random"])):
        assert cmd([*args, "--games", "4", "--seed", seed, "--out", str(out)]) == 2
        assert _one_error(capsys).endswith(f"error: --seed must be an integer in 0..4294967295, got {seed}")
    assert not out.exists()


def test_evaluate_and_selfplay_of_one_seed_play_different_walls(tmp_path):
    sp, ev = tmp_path / "sp", tmp_path / "ev"
    assert selfplay.main(["--agent", "random", "--games", "2", "--seed", "5", "--out", str(sp),
                          "--workers", "1"]) == 0
    # Self-play's walls are those it always had (the training data of the shipped models can
    # be made again): wall seeds written down before evaluate got a stream of its own.
    logs = sorted(sp.glob("*.mjson.gz"))
    assert [p.name for p in logs] == ["000000-8411699.mjson.gz", "000001-1898245334.mjson.gz"]
    assert evaluate.main(["--out", str(ev), "--player", "random", "--vs", "random", "--games", "4",
                          "--seed", "5", "--workers", "1", "--save-logs"]) == 0
    recs = _lines((ev / "results.jsonl").read_text())
    assert {r["seed"] for r in recs}.isdisjoint({8411699, 1898245334})
    deal = read_events(ev / recs[0]["log"])[1]["tehais"]
    assert all(read_events(p)[1]["tehais"] != deal for p in logs)


def test_selfplay_continues_an_older_directory_with_a_warning(tmp_path, capsys):
    out = tmp_path / "sp"
    assert selfplay.main(["--agent", "random", "--games", "1", "--out", str(out), "--workers", "1"]) == 0
    (out / "run.json").unlink()  # as an older selfplay left it
    log = next(out.glob("*.mjson.gz"))
    kept = log.read_bytes()
    capsys.readouterr()
    assert selfplay.main(["--agent", "random", "--games", "2", "--out", str(out), "--workers", "1"]) == 0
    assert "holds logs but no run.json" in capsys.readouterr().err
    assert log.read_bytes() == kept and len(list(out.glob("*.mjson.gz"))) == 2
    # A broken run.json is no such directory: exit 2, nothing changed.
    (out / "run.json").write_text("{")
    assert selfplay.main(["--agent", "random", "--games", "3", "--out", str(out), "--workers", "1"]) == 2
    assert f"{out / 'run.json'}: unreadable run description" in _one_error(capsys)
    assert len(list(out.glob("*.mjson.gz"))) == 2
