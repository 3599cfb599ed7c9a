"""Game records: readers of the three formats, the mjai writer and the engine replay check.

Oracles: Tenhou's own scores in the records (``sc``/``owari`` in mjlog, deltas in
tenhou.net/6), recomputed by riichienv in ``python -m game.records check``; the paired
mjlog/tenhou.net/6 files of the same games.
"""
from __future__ import annotations

import copy
import gzip
import re
import subprocess
import sys
from pathlib import Path

import pytest

from game.errors import RecordError
from game.records import read_events, write_mjai
from game.records.__main__ import main
from game.records.check import check_events
from game.records.mjlog import decode_meld

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
MJLOG = sorted((DATA / "phoenix" / "mjlog").glob("*.xml"))
TENHOU6 = sorted((DATA / "phoenix" / "tenhou6").glob("*.json"))
EDGE = sorted((DATA / "edge_rounds").glob("*.json"))

# Files whose disagreement is explained, with the reason; everything else must be OK.
KNOWN_BAD = {
    # Record defect: a riichi stick is deposited and later won, yet the win's deltas sum to 0.
    "confusing_nakis_1.json": ("MISMATCH", "record is inconsistent"),
    # Synthetic call-order test, not a game: four plain 5s in a red-five set.
    "confusing_nakis_2.json": ("ERROR", "5s"),
    # riichienv shows the first kakan's dora when a second kakan is declared, before the
    # chankan that robs it; Tenhou never shows that dora (scores still agree).
    "double_kakan_then_chankan.json": ("MISMATCH", "riichienv: shows an earlier kakan's dora"),
}


def _run_check(capsys, files: list[Path]) -> tuple[int, list[str]]:
    code = main(["check", *map(str, files)])
    lines = capsys.readouterr().out.splitlines()
    return code, lines


# --- decode_meld ----------------------------------------------------------------------------

def test_decode_meld_pon_chi_and_kans():
    # From mjx__double-ron.xml: seat 0 discards id 132 (C), seat 3 pons it.
    pon = decode_meld(50761, who=3)
    assert pon["type"] == "pon" and pon["called"] == 132 and pon["target"] == 0
    assert sorted(pon["tiles"]) == [132, 133, 135] and pon["consumed"] == [133, 135]
    chi = decode_meld(25631, who=0)  # seat 0 chis id 44 (3p) discarded by seat 3
    assert chi["type"] == "chi" and chi["called"] == 44 and chi["target"] == 3
    assert [t // 4 for t in chi["tiles"]] == [10, 11, 12]
    ankan = decode_meld(104 << 8)
    assert ankan["type"] == "ankan" and ankan["tiles"] == [104, 105, 106, 107]
    assert ankan["called"] is None and ankan["target"] is None
    dmk = decode_meld((70 << 8) | 2, who=1)
    assert dmk["type"] == "daiminkan" and dmk["called"] == 70 and dmk["target"] == 3
    kakan = decode_meld(5169, who=2)  # a kakan of mjx__2016052515
    assert kakan["type"] == "kakan" and len(kakan["tiles"]) == 4
    assert kakan["added"] not in kakan["consumed"] and len(kakan["consumed"]) == 3


def test_decode_meld_matches_the_next_discard_in_every_game():
    """Every chi/pon/daiminkan of the 42 games takes the tile discarded just before it."""
    import re
    n = 0
    for path in MJLOG:
        tags = re.findall(r"<([A-Z]+)(\d*)([^>]*)>", path.read_text())
        last_discard = None
        for name, num, attrs in tags:
            if name in "DEFG" and num:
                last_discard = ("DEFG".index(name), int(num))
            elif name == "N":
                who = int(re.search(r'who="(\d)"', attrs).group(1))
                meld = decode_meld(int(re.search(r'm="(\d+)"', attrs).group(1)), who)
                if meld["type"] in ("chi", "pon", "daiminkan"):
                    assert (meld["target"], meld["called"]) == last_discard
                    n += 1
    assert n > 800


# --- the engine check over the real data ---------------------------------------------------

def test_all_mjlog_games_pass_the_check(capsys):
    assert len(MJLOG) == 42
    code, lines = _run_check(capsys, MJLOG)
    assert len(lines) == 42
    assert code == 0, [l for l in lines if not l.startswith("OK")]
    assert all(line.startswith("OK ") for line in lines)


def test_all_tenhou6_files_pass_the_check(capsys):
    files = TENHOU6 + EDGE
    good = [f for f in files if f.name not in KNOWN_BAD]
    code, lines = _run_check(capsys, good)
    assert code == 0, [l for l in lines if not l.startswith("OK")]
    assert len(lines) == len(good) and all(l.startswith("OK ") for l in lines)


@pytest.mark.parametrize("name", sorted(KNOWN_BAD))
def test_known_bad_edge_rounds_are_reported_with_their_reason(capsys, name):
    status, words = KNOWN_BAD[name]
    code, lines = _run_check(capsys, [DATA / "edge_rounds" / name])
    assert len(lines) == 1 and lines[0].startswith(status) and words in lines[0]
    assert code == (2 if status == "ERROR" else 1)


def test_the_check_recomputes_scores():
    """Changing any number the engine recomputes must be caught."""
    events = read_events(DATA / "phoenix" / "mjlog" / "mjx__double-ron.xml")
    assert check_events(events).ok
    bad_win = copy.deepcopy(events)
    [e for e in bad_win if e["type"] == "hora"][-1]["deltas"] = [0, 0, 8100, -8100]
    assert any("deltas" in m for m in check_events(bad_win).mismatches)
    bad_draw = copy.deepcopy(events)
    [e for e in bad_draw if e["type"] == "ryukyoku"][0]["deltas"] = [0, 0, 0, 0]
    assert not check_events(bad_draw).ok
    bad_final = copy.deepcopy(events)
    bad_final[-1]["scores"][0] += 1000
    assert any("final" in m for m in check_events(bad_final).mismatches)
    bad_play = copy.deepcopy(events)
    i = [k for k, e in enumerate(bad_play) if e["type"] == "dahai"][5]
    bad_play[i]["pai"] = "C" if bad_play[i]["pai"] != "C" else "P"
    assert any("not legal" in m for m in check_events(bad_play).mismatches)


def test_double_ron_nagashi_pao_and_abortive_draws_are_read():
    kinds = {}
    for path in MJLOG:
        for e in read_events(path):
            if e["type"] == "ryukyoku":
                kinds.setdefault(e["reason"], path.name)
            if e["type"] == "hora" and "pao" in e:
                kinds.setdefault("pao", path.name)
    assert {"exhaustive", "kyushukyuhai", "suucha_riichi", "suufon_renda", "suukaikan",
            "nagashi_mangan", "pao"} <= set(kinds)
    double = read_events(DATA / "phoenix" / "mjlog" / "mjx__double-ron.xml")
    last_hand = double[max(i for i, e in enumerate(double) if e["type"] == "start_kyoku"):]
    assert [e["type"] for e in last_hand].count("hora") == 2


# --- paired formats and round trips --------------------------------------------------------

def _comparable(events: list[dict]) -> list[dict]:
    """Drop what one format cannot carry: player names, fu of limit hands, final scores."""
    out = []
    for e in events:
        e = dict(e)
        if e["type"] == "start_game":
            e.pop("names")
        if e["type"] == "hora":
            e.pop("fu", None)
        if e["type"] == "end_game":
            e.pop("scores", None)
        out.append(e)
    return out


def test_paired_mjlog_and_tenhou6_give_the_same_events():
    pairs = [(x, DATA / "phoenix" / "tenhou6" / (x.stem + ".json")) for x in MJLOG]
    pairs = [(x, j) for x, j in pairs if j.exists()]
    assert len(pairs) >= 15
    for xml, js in pairs:
        a, b = read_events(xml), read_events(js)
        assert _comparable(a) == _comparable(b), xml.name
        fus = [(p.get("fu"), q.get("fu")) for p, q in zip(a, b) if q.get("fu") is not None]
        assert all(p == q for p, q in fus)


@pytest.mark.parametrize("suffix", [".mjson", ".mjson.gz"])
def test_mjlog_to_mjai_file_round_trip(tmp_path, suffix):
    src = DATA / "phoenix" / "mjlog" / "mjx__2016052515gm-00a9-0000-c4d72066.xml"  # kans
    events = read_events(src)
    out = tmp_path / ("game" + suffix)
    assert main(["convert", str(src), "-o", str(out)]) == 0
    assert (out.read_bytes()[:2] == b"\x1f\x8b") == suffix.endswith(".gz")
    assert read_events(out) == events
    write_mjai(events, tmp_path / "again.json")
    assert read_events(tmp_path / "again.json") == events


def test_gzipped_mjlog_is_read_by_content(tmp_path):
    src = DATA / "phoenix" / "mjlog" / "gimite__test.xml"
    packed = tmp_path / "record.bin"
    packed.write_bytes(gzip.compress(src.read_bytes()))
    assert read_events(packed) == read_events(src)


# --- malformed input -----------------------------------------------------------------------

def _mjai_file(tmp_path, name="game.mjson") -> Path:
    path = tmp_path / name
    write_mjai(read_events(DATA / "edge_rounds" / "double_ron.json"), path)
    return path


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "game.records", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_malformed_line_exits_2_with_one_line_in_a_subprocess(tmp_path):
    path = _mjai_file(tmp_path)
    lines = path.read_text().splitlines()
    lines[6] = lines[6][:-5]
    path.write_text("\n".join(lines) + "\n")
    proc = _cli("check", str(path))
    assert proc.returncode == 2
    out = (proc.stdout + proc.stderr).strip().splitlines()
    assert len(out) == 1 and str(path) in out[0] and "line 7" in out[0]
    assert "Traceback" not in proc.stderr


def test_unknown_tile_names_its_position(tmp_path, capsys):
    path = _mjai_file(tmp_path)
    text = path.read_text().replace('"pai":"C"', '"pai":"8z"', 1)
    path.write_text(text)
    code, lines = _run_check(capsys, [path])
    assert code == 2 and len(lines) == 1 and "line " in lines[0] and "8z" in lines[0]
    xml = tmp_path / "bad.xml"
    xml.write_text((DATA / "phoenix" / "mjlog" / "gimite__test.xml").read_text()
                   .replace("<D", "<D140/><D", 1))
    code, lines = _run_check(capsys, [xml])
    assert code == 2 and len(lines) == 1 and "tag " in lines[0] and str(xml) in lines[0]


@pytest.mark.parametrize("packed", [False, True])
def test_truncated_files_exit_2(tmp_path, capsys, packed):
    for src in (_mjai_file(tmp_path), DATA / "phoenix" / "mjlog" / "gimite__test.xml"):
        data = src.read_bytes()
        if packed:
            data = gzip.compress(data)
        cut = tmp_path / ("cut" + src.suffix + (".gz" if packed else ""))
        cut.write_bytes(data[: len(data) * 2 // 3])
        code, lines = _run_check(capsys, [cut])
        assert code == 2 and len(lines) == 1 and str(cut) in lines[0]
        assert ("byte " if packed else ("line " if src.suffix == ".mjson" else "tag ")) in lines[0]


def test_read_events_raises_record_error_with_position(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"type":"start_game","names":["a","b","c","d"]}\n{"type": "dahai", \n')
    with pytest.raises(RecordError) as info:
        read_events(bad)
    assert info.value.path == str(bad) and info.value.position == "line 2"


# --- malformed events, a batch that goes on, records that cannot be checked --------------------

def _first(events: list[dict], kind: str, n: int = 0) -> dict:
    return [e for e in events if e["type"] == kind][n]


def _without_tehai(e: list[dict]) -> None:
    _first(e, "start_kyoku")["tehais"].pop()


def _next_seat_discards(e: list[dict]) -> None:
    dahai = _first(e, "dahai", 3)
    dahai["actor"] = (dahai["actor"] + 1) % 4


def _next_seat_draws(e: list[dict]) -> None:
    tsumo = _first(e, "tsumo", 2)
    tsumo["actor"] = (tsumo["actor"] + 1) % 4


# name -> (mutation of the real record, where it is reported, words of the message). In the
# mjai file, line 1 is start_game, line 2 the first start_kyoku, line 3 the first draw.
MALFORMED = {
    "oya7": (lambda e: _first(e, "start_kyoku").update(oya=7), "line 2", "oya 7 is not an integer in 0..3"),
    "three_tehais": (_without_tehai, "line 2", "tehais holds 3 starting hands, not 4"),
    "bakaze_x": (lambda e: _first(e, "start_kyoku").update(bakaze="X"), "line 2", "bakaze 'X'"),
    "no_scores": (lambda e: _first(e, "start_kyoku").pop("scores"), "line 2", "start_kyoku without 'scores'"),
    "tsumo_seat7": (lambda e: _first(e, "tsumo").update(actor=7), "line 3", "tsumo actor 7"),
    "dahai_seat7": (lambda e: _first(e, "dahai").update(actor=7), "line 4", "dahai actor 7"),
    "dahai_out_of_turn": (_next_seat_discards, "event ", "discards out of turn"),
    "tsumo_out_of_turn": (_next_seat_draws, "event ", "draws, but the draw is seat"),
    "no_hands": (lambda e: e.__setitem__(slice(1, -1), []), "event 1", "holds no hand"),
}


def test_each_malformed_file_is_one_error_line_and_the_batch_goes_on(tmp_path, capsys):
    events = read_events(DATA / "edge_rounds" / "double_ron.json")
    good = tmp_path / "b_good.mjson"
    write_mjai(events, good)
    paths = {}
    for name, (mutate, _, _) in MALFORMED.items():
        bad = copy.deepcopy(events)
        mutate(bad)
        paths[name] = tmp_path / f"a_{name}.mjson"
        write_mjai(bad, paths[name])
    code, lines = _run_check(capsys, sorted([good, *paths.values()]))
    assert code == 2 and len(lines) == len(MALFORMED) + 1
    by_file = {line.split(" ", 1)[1].split(":", 1)[0].split(" ", 1)[0]: line for line in lines}
    assert by_file[str(good)].startswith("OK ")
    for name, (_, where, words) in MALFORMED.items():
        line = by_file[str(paths[name])]
        assert line.startswith(f"ERROR {paths[name]}:{where}") and words in line, line


def test_a_malformed_start_kyoku_never_reaches_the_engine_in_a_subprocess(tmp_path):
    """oya 7 was a Rust panic inside riichienv: now one line and exit 2."""
    events = read_events(DATA / "edge_rounds" / "double_ron.json")
    _first(events, "start_kyoku")["oya"] = 7
    bad = tmp_path / "oya7.mjson"
    write_mjai(events, bad)
    proc = _cli("check", str(bad))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "panic" not in proc.stderr
    assert proc.stdout.splitlines() == [
        f"ERROR {bad}:line 2: malformed event: start_kyoku oya 7 is not an integer in 0..3"]


def test_a_record_without_deltas_is_unverifiable_unless_scores_state_the_outcome(tmp_path, capsys):
    one_hand = read_events(DATA / "edge_rounds" / "double_ron.json")
    assert one_hand[-1] == {"type": "end_game"}  # no final scores in a single round
    for e in one_hand:
        e.pop("deltas", None)
    path = tmp_path / "no_deltas.mjson"
    write_mjai(one_hand, path)
    code, lines = _run_check(capsys, [path])
    assert code == 1 and len(lines) == 1
    assert lines[0].startswith(f"UNVERIFIABLE {path}: ") and "neither the deltas" in lines[0]

    # A whole game keeps its start scores and Tenhou's final scores: every hand is still
    # checked through them, so a wrong score is still caught without any deltas.
    game = read_events(DATA / "phoenix" / "mjlog" / "gimite__test.xml")
    for e in game:
        e.pop("deltas", None)
    assert check_events(game).ok
    _first(game, "start_kyoku", 5)["scores"][0] += 1000
    assert any("record starts with scores" in m for m in check_events(game).mismatches)


def test_convert_to_a_directory_or_a_missing_folder_exits_2_and_writes_nothing(tmp_path, capsys):
    src = DATA / "edge_rounds" / "double_ron.json"
    target = tmp_path / "out"
    target.mkdir()
    assert main(["convert", str(src), "-o", str(target)]) == 2
    assert capsys.readouterr().err == f"error: {target}: is a directory; name the file to write\n"
    missing = tmp_path / "no" / "such" / "x.mjson"
    assert main(["convert", str(src), "-o", str(missing)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {missing}: folder ")
    assert not (tmp_path / "no").exists() and list(target.iterdir()) == []


def test_convert_keeps_the_old_output_when_the_input_or_the_write_fails(tmp_path, capsys, monkeypatch):
    src = DATA / "edge_rounds" / "double_ron.json"
    out = tmp_path / "game.mjson"
    assert main(["convert", str(src), "-o", str(out)]) == 0
    before = out.read_bytes()
    bad = tmp_path / "bad.mjson"
    text, n = re.subn(r'"oya":\d', '"oya":7', before.decode(), count=1)
    assert n == 1
    bad.write_text(text)
    assert main(["convert", str(bad), "-o", str(out)]) == 2
    assert out.read_bytes() == before

    def full_disk(*args):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr("game.cli.os.replace", full_disk)  # the atomic writer's rename
    assert main(["convert", str(DATA / "phoenix" / "mjlog" / "gimite__test.xml"), "-o", str(out)]) == 2
    assert capsys.readouterr().err.endswith(f"error: {out}: cannot write: No space left on device\n")
    assert out.read_bytes() == before and sorted(tmp_path.iterdir()) == [bad, out]
