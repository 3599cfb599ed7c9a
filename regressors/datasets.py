"""Datasets of the estimators: one row per decision point, labelled from the record's future.

``build_dataset(paths)`` replays every record once (:class:`regressors.replay.FullReplay`:
every seat's ``game.state.TableState``, all four hands known) and returns a :class:`Dataset` of flat numpy arrays, saved as one
compressed ``.npz`` and reused by every training run and by the report:

* ``rank_*``   one row per (start of hand, player): Eq. 1 features, final rank 0..3;
* ``dec_*``    one row per discard (seat i discards tile t), with for each opponent j
               (i+1, i+2, i+3): tenpai features, riichi, takes, tenpai label, the wait
               category of t (closed hands) and the enumerated P(t in waits | tenpai) (open
               hands); the labels "t was ronned", "the hand ended before i's next turn"
               (not on a ronned discard) and the horizon ratio T'/T_max (Sec. VI-C); how
               and when the hand ended for i (``end_kind``: :data:`END_KINDS`, ``t_left``:
               i's discards from this one to the end, ``reach_q``: which of them declared
               i's riichi) and which opponents were tenpai at an exhaustive draw
               (``end_tenpai``): the labels of the per-turn ending hazards;
* ``wait_*``   for each closed tenpai opponent at a discard: the wait category and unseen
               count of all 34 kinds and whether j could ron each (Eq. 20 histograms);
* ``win_*``    one row per win: the winner's public features, its points and point class,
               tsumo or ron, riichi and ippatsu (no call and no discard of the winner since
               its riichi was accepted).

Every array carries the index of its game (``*_game``) so train/held-out splits are by game.
"""
from __future__ import annotations

import glob as _glob
import gzip
import hashlib
import json
import os
import sys
import zipfile
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from game.cli import check_output_dir
from game.errors import MahjongError, RecordError
from game.tiles import mjai_to_kind
from regressors import features as F
from regressors.replay import FullReplay

# 2: safe kinds and the last take read in the true order of play, temporary furiten among
# the safe kinds, TableState's furiten in the labels (regressors/README.md)
# 3: the hand's ending per discard row (end_kind, t_left, reach_q, end_tenpai); win riichi/ippatsu
DATASET_VERSION = 4

#: How a hand ended for the seat of a discard row (``dec_end_kind``).
END_KINDS = ("own_win", "deal_in", "other_win", "exhaustive_draw", "abortive_draw")
#: ``ryukyoku`` reasons of a wall run out (riichienv's, our mjlog reader's; nagashi mangan is
#: paid at an exhaustive draw).
EXHAUSTIVE_REASONS = frozenset(("exhaustive_draw", "exhaustive", "nagashi_mangan"))
#: ``dec_reach_q`` of a seat that did not declare riichi in the rest of the hand.
NO_REACH = 127

# Non-dealer point classes of a win (dealer points x 2/3): upper bounds, inclusive.
POINT_BOUNDS = (1500, 2700, 4500, 6500, 8000, 12000, 16000, 24000)
N_POINT_CLASSES = len(POINT_BOUNDS) + 1


def point_class(points: int, dealer: bool) -> int:
    base = points * 2 / 3 if dealer else points
    for c, b in enumerate(POINT_BOUNDS):
        if base <= b:
            return c
    return len(POINT_BOUNDS)


# --- reading records ------------------------------------------------------------------------

def record_files(spec: str | Sequence[str]) -> list[Path]:
    """Files of a glob (or list of globs/paths); RecordError when nothing matches."""
    try:
        from game.records import iter_record_files  # the records engineer's reader
    except ImportError:
        iter_record_files = None
    if iter_record_files is not None:
        files = list(iter_record_files(spec))
    else:
        specs = [spec] if isinstance(spec, (str, Path)) else list(spec)
        files = []
        for s in specs:
            hits = sorted(_glob.glob(str(s), recursive=True))
            files += [Path(h) for h in hits if Path(h).is_file()]
    if not files:
        raise RecordError(f"no record files match {spec!r}")
    return [Path(f) for f in files]


def read_record(path: Path) -> list[dict]:
    """mjai events of a record in any of the three formats (game.records when present)."""
    try:
        from game.records import read_events
    except ImportError:
        read_events = None
    if read_events is not None:
        return read_events(path)
    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    events = []
    for no, line in enumerate(raw.decode("utf-8").splitlines(), 1):
        if line.strip():
            try:
                events.append(json.loads(line))
            except ValueError as exc:
                raise RecordError(f"not an mjai JSON line ({exc})", path=str(path), position=f"line {no}")
    return events


def is_hanchan(events: list[dict]) -> bool:
    """East-only or east-south game, from the record alone.

    A tonpu game reaches the south round only while nobody has 30,000 (its extension), so a
    south hand opened with someone at 30,000 or more, or any west hand, means hanchan.
    """
    first = next((e for e in events if e.get("type") == "start_game"), {})
    if "hanchan" in first:
        return bool(first["hanchan"])
    for e in events:
        if e.get("type") == "start_kyoku":
            if e.get("bakaze") == "W":
                return True
            if e.get("bakaze") == "S":
                return max(e["scores"]) >= 30000
    return False


# --- the dataset ------------------------------------------------------------------------------

@dataclass
class Dataset:
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def __getitem__(self, key: str) -> np.ndarray:
        return self.arrays[key]

    @property
    def n_games(self) -> int:
        return len(self.files)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        write_npz(path, _version=np.array(DATASET_VERSION), _files=np.array(self.files), **self.arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> "Dataset":
        """A saved dataset; RecordError naming ``path`` when it is not one."""
        z = read_npz(path)
        if "_version" not in z or "_files" not in z:
            raise RecordError("not a dataset (no _version / _files)", path=str(path))
        if int(z["_version"]) != DATASET_VERSION:
            raise MahjongError(f"{path}: dataset version {int(z['_version'])} != {DATASET_VERSION}")
        return cls({k: v for k, v in z.items() if not k.startswith("_")}, [str(f) for f in z["_files"]])

    def split(self, held_out: float = 0.2, seed: int = 0) -> tuple["Dataset", "Dataset"]:
        """Train / held-out datasets, split by game."""
        rng = np.random.default_rng(seed)
        test = rng.random(self.n_games) < held_out
        if self.n_games >= 2 and not test.any():
            test[rng.integers(self.n_games)] = True
        return self.subset(~test), self.subset(test)

    def subset(self, games: np.ndarray) -> "Dataset":
        out = {}
        for prefix in ("rank", "dec", "wait", "win"):
            mask = games[self.arrays[f"{prefix}_game"]]
            for k, v in self.arrays.items():
                if k.startswith(prefix + "_"):
                    out[k] = v[mask]
        return Dataset(out, self.files)


class _Rows:
    """Growing lists of per-row values, stacked at the end."""

    def __init__(self) -> None:
        self.cols: dict[str, list] = {}

    def add(self, **values) -> None:
        for k, v in values.items():
            self.cols.setdefault(k, []).append(v)

    def arrays(self, prefix: str, dtypes: dict[str, type], shapes: dict[str, tuple]) -> dict[str, np.ndarray]:
        out = {}
        for k, dt in dtypes.items():
            vals = self.cols.get(k, [])
            out[f"{prefix}_{k}"] = (np.array(vals, dtype=dt) if vals
                                    else np.zeros((0,) + shapes.get(k, ()), dtype=dt))
        return out


def _future_labels(events: list[dict], idx: int, seat: int) -> tuple[bool, bool]:
    """(ronned, hand ended before seat's next turn) for seat's discard at ``idx``."""
    nxt = events[idx + 1] if idx + 1 < len(events) else {}
    if nxt.get("type") == "hora" and nxt.get("target") == seat and nxt.get("actor") != seat:
        return True, False
    for e in events[idx + 1:]:
        t = e.get("type")
        if t in ("tsumo", "chi", "pon", "daiminkan") and e.get("actor") == seat:
            return False, False
        if t == "hora":
            return False, e.get("actor") != seat
        if t == "ryukyoku":
            return False, True
        if t == "end_kyoku":
            break
    return False, False


def _game_rows(events: list[dict], g: int, path: str, rows: dict[str, _Rows]) -> None:
    hanchan = is_hanchan(events)
    rep = FullReplay(path=path)
    kyoku_starts: list[tuple[list[int], int, int, int, int, int]] = []
    # per-kyoku lookups: its end index, its winners, each seat's discards left
    end_of = np.zeros(len(events), dtype=np.int64)
    winners_of: dict[int, set[int]] = {}
    end = len(events)
    winners: set[int] = set()
    for i in range(len(events) - 1, -1, -1):
        t = events[i].get("type")
        if t == "end_kyoku" or t == "end_game":
            end, winners = i, set()
        elif t == "hora":
            winners.add(int(events[i].get("actor", -1)))
        end_of[i] = end
        if t == "start_kyoku":
            winners_of[i] = set(winners)
    discards_left = {}
    counts = [0] * 4
    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if e.get("type") in ("end_kyoku", "end_game", "start_kyoku"):
            counts = [0] * 4
        if e.get("type") == "dahai":
            counts[int(e["actor"])] += 1
            discards_left[i] = counts[int(e["actor"])]
    endings = _kyoku_endings(events)
    kyoku_winners: set[int] = set()
    ippatsu = [False] * 4
    ending: dict = {}
    first_row = 0
    for idx, e in enumerate(events):
        t = e.get("type")
        if t == "start_kyoku":
            kyoku_winners = winners_of.get(idx, set())
            ending = endings.get(idx, {})
            first_row = len(rows["dec"].cols.get("game", []))
        if t == "start_kyoku" or t in ("chi", "pon", "daiminkan", "ankan", "kakan"):
            ippatsu = [False] * 4  # a call breaks every ippatsu
        elif t == "reach_accepted":
            ippatsu[int(e["actor"])] = True
        elif t == "dahai" and events[idx - 1].get("type") != "reach":
            ippatsu[int(e["actor"])] = False
        if t == "dahai" and rep.in_kyoku:
            _discard_rows(rep, events, idx, e, g, rows, discards_left[idx], kyoku_winners, ending)
        elif t == "hora" and rep.in_kyoku:
            _win_row(rep, e, g, rows, ippatsu[int(e["actor"])])
        elif t == "ryukyoku" and rep.in_kyoku and all(rep.known):
            _patch_end_tenpai(rows["dec"], first_row, [bool(rep.waits(s).any()) for s in range(4)])
        rep.update(e, idx)
        if t == "start_kyoku":
            kyoku_starts.append((list(rep.scores), rep.round_wind, rep.kyoku, rep.dealer,
                                 rep.honba, rep.kyotaku))
    if not kyoku_starts:
        raise RecordError("the record holds no hand (no start_kyoku event)", path=path)
    final = F.current_ranks(rep.scores)
    for scores, rw, ky, dealer, honba, sticks in kyoku_starts:
        for p in range(4):
            rows["rank"].add(x=F.rank_features(scores, p, rw, ky, dealer, honba, sticks, hanchan),
                             y=final[p] - 1, game=g)


def _kyoku_endings(events: list[dict]) -> dict[int, dict]:
    """Per ``start_kyoku`` index: how the hand ended (``wins``: (actor, target) pairs,
    ``draw``: None, "exhaustive" or "abortive") and, per seat, the event index of the discard
    that declared its riichi (``reach``)."""
    out: dict[int, dict] = {}
    cur: dict | None = None
    draws = 0
    pending: dict[int, bool] = {}
    for idx, e in enumerate(events):
        t = e.get("type")
        if t == "start_kyoku":
            cur = {"wins": [], "draw": None, "reach": {}}
            out[idx] = cur
            draws, pending = 0, {}
        elif cur is None:
            continue
        elif t == "tsumo":
            draws += 1
        elif t == "reach":
            pending[int(e["actor"])] = True
        elif t == "dahai" and pending.pop(int(e["actor"]), False):
            cur["reach"][int(e["actor"])] = idx
        elif t == "hora":
            cur["wins"].append((int(e["actor"]), int(e.get("target", e["actor"]))))
        elif t == "ryukyoku":
            # a live wall of 70 draws (rinshan draws shorten it by as many)
            exhaustive = e.get("reason") in EXHAUSTIVE_REASONS or draws >= 70
            cur["draw"] = "exhaustive" if exhaustive else "abortive"
    return out


def _end_kind(ending: dict, seat: int) -> int:
    wins = ending.get("wins", [])
    if any(a == seat for a, _ in wins):
        return END_KINDS.index("own_win")
    if any(tg == seat and a != seat for a, tg in wins):
        return END_KINDS.index("deal_in")
    if wins:
        return END_KINDS.index("other_win")
    if ending.get("draw") == "exhaustive":
        return END_KINDS.index("exhaustive_draw")
    return END_KINDS.index("abortive_draw")


def _patch_end_tenpai(dec: _Rows, first: int, tenpai: list[bool]) -> None:
    """At an exhaustive or abortive draw: the opponents' tenpai into this hand's rows."""
    actors = dec.cols.get("actor", [])
    for k in range(first, len(actors)):
        i = actors[k]
        dec.cols["end_tenpai"][k] = np.array([tenpai[(i + d) % 4] for d in (1, 2, 3)])


def _reach_q(events: list[dict], idx: int, seat: int, reach_idx: int | None) -> int:
    """Which of seat's discards from ``idx`` on (1 = this one) declares its riichi; 0 when
    it was declared before, :data:`NO_REACH` when never."""
    if reach_idx is None:
        return NO_REACH
    if reach_idx < idx:
        return 0
    return 1 + sum(1 for e in events[idx:reach_idx] if e.get("type") == "dahai" and e.get("actor") == seat)


def _discard_rows(rep: FullReplay, events: list[dict], idx: int, e: dict, g: int,
                  rows: dict[str, _Rows], t_left: int, winners: set[int], ending: dict) -> None:
    i = int(e["actor"])
    if not all(rep.known):
        return
    tile = mjai_to_kind(e["pai"])
    view = rep.view(i)  # seat i's own state, before it discards this tile
    ronned, ended = _future_labels(events, idx, i)
    others = [(i + k) % 4 for k in (1, 2, 3)]
    tf, riichi, takes, tenpai, cat_t, safes, nconc, ronnable_t = [], [], [], [], [], [], [], []
    wait_t, wait_share = [], []
    for j in others:
        hand = rep.concealed(j)
        nt = F.n_takes(view.melds[j])
        closed = nt == 0
        waits = rep.waits(j)
        safe = F.safe_kinds(view, j)
        can_ron = rep.ronnable(j)
        tf.append(F.tenpai_features(view, j))
        riichi.append(view.riichi[j])
        takes.append(nt)
        tenpai.append(bool(waits.any()))
        cats, unseen = F.wait_categories(view, j)
        cat_t.append(cats[tile])
        ronnable_t.append(bool(can_ron[tile]))
        wait_t.append(bool(waits[tile]))
        wait_share.append(_wait_share(rep.view(j).unseen, waits))
        safes.append(safe)
        nconc.append(int(hand.sum()))
        if closed and waits.any():
            rows["wait"].add(cat=cats.astype(np.int8), unseen=unseen.astype(np.int8),
                             y=can_ron, riichi=view.riichi[j], game=g)
    shanten = F.hand_shanten(view)
    t_max = 1 + view.tiles_left // 4
    r = min(1.0, t_left / t_max)
    rows["dec"].add(tf=np.stack(tf), riichi=riichi, takes=takes, tenpai=tenpai, cat_t=cat_t,
                    safe=np.stack(safes), nconc=nconc, unseen=view.unseen.astype(np.int8), ronnable_t=ronnable_t,
                    wait_t=wait_t, wait_share=wait_share, tile=tile, unseen_t=int(view.unseen[tile]),
                    ronned=ronned, ended=ended, ratio=r, ratio_ok=i not in winners,
                    actor=i, t_left=t_left, end_kind=_end_kind(ending, i),
                    reach_q=_reach_q(events, idx, i, ending.get("reach", {}).get(i)),
                    end_tenpai=np.zeros(3, bool),
                    ctx=np.array([view.tiles_left, len(view.discards[i]), F.n_takes(view.melds[i]),
                                  view.riichi[i], shanten], dtype=np.float32),
                    wv=np.stack([F.win_value_features(view, j) for j in others]), game=g)


def _wait_share(unseen: np.ndarray, waits: np.ndarray) -> float:
    """The share of a seat's unseen tiles that are its waits: the chance that a discard is
    one of them if the others threw their tiles at random (0 when it has no wait)."""
    total = int(unseen.sum())
    return float(unseen[waits].sum()) / total if total and waits.any() else 0.0


def _win_row(rep: FullReplay, e: dict, g: int, rows: dict[str, _Rows], ippatsu: bool) -> None:
    j = int(e["actor"])
    deltas = e.get("deltas")
    if not deltas:
        return
    # the hand's own value: the winner's gain less sticks and honba
    sticks = rep.kyotaku * 1000
    gain = int(deltas[j]) - sticks - rep.honba * 300
    if e.get("target", j) != j:
        gain = -int(deltas[int(e["target"])]) - rep.honba * 300
    if gain <= 0:
        return
    view = rep.table  # public fields only: any followed seat's state
    rows["win"].add(x=F.win_value_features(view, j), points=gain,
                    cls=point_class(gain, j == rep.dealer), dealer=j == rep.dealer,
                    tsumo=e.get("target", j) == j, riichi=bool(rep.riichi[j]), ippatsu=ippatsu, game=g)


_DTYPES = {
    "rank": ({"x": np.float32, "y": np.int8, "game": np.int32},
             {"x": (len(F.RANK_FEATURES),)}),
    "dec": ({"tf": np.float32, "riichi": bool, "takes": np.int8, "tenpai": bool, "cat_t": np.int8,
             "safe": bool, "nconc": np.int8, "unseen": np.int8, "ronnable_t": bool, "wait_t": bool,
             "wait_share": np.float32, "tile": np.int8, "unseen_t": np.int8,
             "ronned": bool, "ended": bool, "ratio": np.float32, "ratio_ok": bool,
             "actor": np.int8, "t_left": np.int16, "end_kind": np.int8, "reach_q": np.int8,
             "end_tenpai": bool, "ctx": np.float32, "wv": np.float32, "game": np.int32},
            {"tf": (3, len(F.TENPAI_FEATURES)), "riichi": (3,), "takes": (3,), "tenpai": (3,),
             "cat_t": (3,), "safe": (3, 34), "nconc": (3,), "unseen": (34,), "ronnable_t": (3,), "wait_t": (3,),
             "wait_share": (3,), "ctx": (5,),
             "end_tenpai": (3,),
             "wv": (3, len(F.WIN_VALUE_FEATURES))}),
    "wait": ({"cat": np.int8, "unseen": np.int8, "y": bool, "riichi": bool, "game": np.int32},
             {"cat": (34,), "unseen": (34,), "y": (34,)}),
    "win": ({"x": np.float32, "points": np.int32, "cls": np.int8, "dealer": bool, "tsumo": bool,
             "riichi": bool, "ippatsu": bool, "game": np.int32}, {"x": (len(F.WIN_VALUE_FEATURES),)}),
}


def build_dataset(paths: Iterable[str | Path], progress: bool = False) -> Dataset:
    """Replay every record once into a :class:`Dataset`.

    Raises RecordError naming the file for an unreadable record, and when no record holds
    a usable hand.
    """
    paths = [str(p) for p in paths]
    if not paths:
        raise RecordError("no record files given")
    rows = {k: _Rows() for k in _DTYPES}
    it = paths
    if progress:
        from tqdm import tqdm

        it = tqdm(paths, desc="replaying records", unit="game")
    for g, path in enumerate(it):
        events = read_record(Path(path))
        if not events:
            raise RecordError("the record is empty", path=path)
        _game_rows(events, g, path, rows)
    arrays: dict[str, np.ndarray] = {}
    for prefix, (dtypes, shapes) in _DTYPES.items():
        arrays.update(rows[prefix].arrays(prefix, dtypes, shapes))
    if len(arrays["dec_game"]) == 0:
        raise RecordError(f"the {len(paths)} record(s) hold no discard with all hands known")
    return Dataset(arrays, paths)


# What a cut or damaged .npz raises when it is opened or read.
_NPZ_ERRORS = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error)


def read_npz(path: str | Path) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` file; RecordError naming it when it is not a readable one
    (a write cut by a kill, a damaged disk, another kind of file)."""
    try:
        z = np.load(path, allow_pickle=False)
        if not isinstance(z, np.lib.npyio.NpzFile):  # a lone .npy array
            raise ValueError("an .npy array, not an .npz archive")
        with z:
            return {k: z[k] for k in z.files}
    except _NPZ_ERRORS as e:
        raise RecordError(f"unreadable .npz ({type(e).__name__}: {e})", path=str(path)) from None


def write_npz(path: str | Path, **arrays: np.ndarray) -> None:
    """``np.savez_compressed`` through a temp file and a rename: a kill never leaves a cut
    cache behind. ``path`` must end in ``.npz`` (numpy would add it)."""
    path = Path(path)
    if path.suffix != ".npz":
        raise ValueError(f"{path} does not end in .npz")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, path)


def unreadable_cache(err: RecordError) -> None:
    """Say on stderr that a cache is rebuilt: it is derived from the records, so rebuilding
    it is always right and costs only time (an error would make the user delete it)."""
    print(f"warning: {err}; 1 unreadable cache rebuilt", file=sys.stderr)


def cache_key(paths: Sequence[str | Path]) -> str:
    h = hashlib.sha1(str(DATASET_VERSION).encode())
    for p in sorted(map(str, paths)):
        st = Path(p).stat()
        h.update(f"{p}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


def cached(spec, cache_dir: str | Path | None, prefix: str, build: Callable, load: Callable, save: Callable):
    """``build(files)`` of the records matching ``spec``, cached in ``cache_dir`` as
    ``PREFIX-<key of the files>.npz`` (None: no cache): ``load(path)`` when it is there and
    readable, else built and ``save(path, result)``."""
    if cache_dir is not None:
        check_output_dir(cache_dir, "--cache")
    files = record_files(spec)
    if cache_dir is None:
        return build(files)
    path = Path(cache_dir) / f"{prefix}-{cache_key(files)}.npz"
    if path.exists():
        try:
            return load(path)
        except RecordError as err:
            unreadable_cache(err)
    result = build(files)
    save(path, result)
    return result


def load_or_build(spec: str | Sequence[str], cache_dir: str | Path | None, progress: bool = True) -> Dataset:
    """The dataset of the records matching ``spec``, built once and cached in ``cache_dir``."""
    return cached(spec, cache_dir, "dataset", lambda files: build_dataset(files, progress), Dataset.load,
                  lambda path, ds: ds.save(path))
