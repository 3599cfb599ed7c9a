"""Training samples for cnn-bot's nets, built once from game records into compact arrays.

Every decision of a record (``game.decisions.iter_decisions``) becomes samples of the tasks
it belongs to (spec §3.5, §4):

* discard: the seat chose a ``dahai``; label = tile kind; mask = the legal discard kinds;
* riichi: ``reach`` was legal; label 1 when it was declared;
* pon: ``pon`` was legal; label 1 when a pon was made;
* chi: ``chi`` was legal; label 0 (no chi) or 1/2/3 (called tile left / middle / right);
* kan: a kan was legal (no net; kept for the agreement of the kan rule): label 1 when a kan
  was declared, and the rule's own answer.

Decisions where the seat won, or had a single legal action, are no samples. With ``thesis=True`` the
thesis's sampling applies (T§4.3, P§VI): one followed seat per hand (random, seeded), its
decisions up to and including its riichi declaration, and no hand in which it lost more
than 1,500 points.

Every sample carries the decision features of :mod:`cnn.features` (planes 87-122), whether
its net reads them or not. ``players`` keeps only the decisions of seats with those names
(the ``start_game`` names of our own records: ``mdp`` to learn from the MDP player); a game
where none of them sits (a real players' record) counts whole.

Planes are stored bit-packed (129 x 34 x 4 bits = 2,193 bytes a sample) in one ``.npz``.
"""
from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

from cnn.encoders import N_PLANES, SeatHistory, offered_kind
from cnn.features import feature_planes
from cnn.rules import KAN_TYPES, chi_class, kan_choice
from game.errors import OutputError, RecordError
from game.tiles import mjai_to_kind
from regressors.datasets import read_npz, unreadable_cache, write_npz

TASKS = ("discard", "pon", "chi", "riichi")
PLANE_BITS = N_PLANES * 34 * 4
LOSS_LIMIT = 1500  # T§4.3: "the subgames that the player loses over 1500 scores"
WINDS = {"E": 0, "S": 1, "W": 2, "N": 3}


def pack(planes: np.ndarray) -> np.ndarray:
    return np.packbits(planes.reshape(-1))


def unpack(packed: np.ndarray, chans: list[int]) -> np.ndarray:
    """(N, 2091) packed rows -> float32 (N, len(chans), 34, 4)."""
    bits = np.unpackbits(packed, axis=1, count=PLANE_BITS).reshape(-1, N_PLANES, 34, 4)
    return bits[:, chans].astype(np.float32)


def hand_deltas(events: list[dict]) -> dict[tuple, list[int]]:
    """Point change of each seat in each hand, keyed (round wind, kyoku 0-based, honba).

    From consecutive ``start_kyoku`` scores (riichi sticks included), the last hand against
    ``end_game`` scores; where those are missing, the ``deltas`` of hora / ryukyoku events.
    """
    starts: list[tuple[tuple, list[int] | None]] = []
    summed: dict[tuple, list[int]] = {}
    key = None
    final = None
    for ev in events:
        t = ev.get("type")
        if t == "start_kyoku":
            key = (WINDS.get(ev.get("bakaze"), 0), int(ev.get("kyoku", 1)) - 1, int(ev.get("honba", 0)))
            starts.append((key, ev.get("scores")))
            summed[key] = [0, 0, 0, 0]
        elif t in ("hora", "ryukyoku") and key is not None and ev.get("deltas"):
            summed[key] = [a + int(b) for a, b in zip(summed[key], ev["deltas"])]
        elif t == "end_game" and ev.get("scores"):
            final = ev["scores"]
    out = dict(summed)
    for i, (k, scores) in enumerate(starts):
        after = starts[i + 1][1] if i + 1 < len(starts) else final
        if scores and after:
            out[k] = [int(b) - int(a) for a, b in zip(scores, after)]
    return out


@dataclass
class SampleArrays:
    """Growing per-task lists; :meth:`arrays` turns them into numpy arrays."""

    x: dict = field(default_factory=lambda: {t: [] for t in TASKS})
    y: dict = field(default_factory=lambda: {t: [] for t in TASKS})
    game: dict = field(default_factory=lambda: {t: [] for t in TASKS})
    mask: list = field(default_factory=list)
    value: list = field(default_factory=list)  # a teacher's value of each discard kind, NaN unvalued
    kan: list = field(default_factory=list)  # (label, rule prediction)

    def add(self, task: str, planes: np.ndarray, label: int, game: int) -> None:
        self.x[task].append(pack(planes))
        self.y[task].append(label)
        self.game[task].append(game)

    def arrays(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        width = (PLANE_BITS + 7) // 8
        for t in TASKS:
            out[f"{t}_x"] = np.array(self.x[t], dtype=np.uint8).reshape(-1, width)
            out[f"{t}_y"] = np.array(self.y[t], dtype=np.int16)
            out[f"{t}_game"] = np.array(self.game[t], dtype=np.int32)
        out["discard_mask"] = np.array(self.mask, dtype=bool).reshape(-1, 34)
        out["discard_value"] = np.array(self.value, dtype=np.float32).reshape(-1, 34)
        out["kan"] = np.array(self.kan, dtype=np.int8).reshape(-1, 2)
        return out


def _followed_seats(events: list[dict], seed: int) -> dict[tuple, int]:
    rng = np.random.default_rng(seed)
    return {k: int(rng.integers(4)) for k in hand_deltas(events)}


def add_game(store: SampleArrays, events: list[dict], game: int, *, thesis: bool, seed: int,
             players: frozenset[str] | None = None, relabel=None) -> None:
    """Append the samples of one game's events to ``store`` (of the seats named in
    ``players`` only, when one of them is at the table). ``relabel``: a callable that gives
    each kept decision (``game.decisions.Decision``) the action to learn instead of the
    recorded one, with the teacher's value of each discard kind (34 floats, NaN where it has
    none) or None: a teacher's choice at the record's states (DAgger, ``player.relabel``)."""
    from game.decisions import iter_decisions
    from game.records import player_names

    names = player_names(events)
    # a game with none of ``players`` at the table (real players' records) counts whole
    named = players if players is not None and len(names) == 4 and set(names) & players else None
    deltas = hand_deltas(events)
    followed = _followed_seats(events, seed) if thesis else {}
    histories = [SeatHistory() for _ in range(4)]
    stopped: set[tuple] = set()
    for dec in iter_decisions(events):
        state, legal, chosen = dec.state, dec.legal, dec.chosen
        key = (state.round_wind, state.kyoku, state.honba)
        if named is not None and names[dec.seat] not in named:
            continue
        if thesis:
            if dec.seat != followed.get(key, dec.seat) or key in stopped:
                continue
            if deltas.get(key, [0] * 4)[dec.seat] < -LOSS_LIMIT:
                continue
        values = None
        if relabel is not None and len(legal) > 1 and not any(a["type"] == "hora" for a in legal):
            chosen, values = relabel(dec)
        _add_decision(store, histories[dec.seat], state, legal, chosen, game, values)
        if thesis and chosen.get("type") == "reach":
            stopped.add(key)  # T§4.3: sampling stops at the followed player's riichi


def _add_decision(store: SampleArrays, history: SeatHistory, state, legal, chosen, game,
                  values: np.ndarray | None = None) -> None:
    types = {a["type"] for a in legal}
    ctype = chosen.get("type")
    if ctype == "hora" or len(legal) < 2:  # winning is a rule; forced moves teach nothing
        return
    if types & set(KAN_TYPES):
        rule = kan_choice(np.asarray(state.hand), legal)
        store.kan.append((int(ctype in KAN_TYPES), int(rule is not None)))
    own_turn = bool(types & {"dahai", "reach", "ankan"})
    if not own_turn and not types & {"pon", "chi"}:
        return  # an open kan offered alone: no net decides it
    features = feature_planes(state, legal)
    if own_turn:
        planes = history.encode(state, discard_decision="dahai" in types, features=features)
        if "reach" in types:
            store.add("riichi", planes, int(ctype == "reach"), game)
        if ctype == "dahai":
            mask = np.zeros(34, dtype=bool)
            for a in legal:
                if a["type"] == "dahai":
                    mask[mjai_to_kind(a["pai"])] = True
            store.add("discard", planes, mjai_to_kind(chosen["pai"]), game)
            store.mask.append(mask)
            store.value.append(np.full(34, np.nan, np.float32) if values is None else values)
    else:
        planes = history.encode(state, discard_decision=False, offered=offered_kind(state),
                                features=features)
        if "pon" in types:
            store.add("pon", planes, int(ctype == "pon"), game)
        if "chi" in types:
            store.add("chi", planes, chi_class(chosen) if ctype == "chi" else 0, game)


def merge(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """One dataset of several (each game numbered after the previous parts' games)."""
    out: dict[str, list[np.ndarray]] = {}
    offset = 0
    for part in parts:
        if "discard_value" not in part:  # a dataset cached before the teacher's values were kept
            part = {**part, "discard_value": np.full((len(part["discard_y"]), 34), np.nan, np.float32)}
        top = -1
        for k, v in part.items():
            if k.endswith("_game"):
                top = max(top, int(v.max()) if len(v) else -1)
                v = v + offset
            out.setdefault(k, []).append(v)
        offset += top + 1
    return {k: np.concatenate(v) for k, v in out.items()}


def build_dataset(paths: list[Path], *, thesis: bool = False, seed: int = 0,
                  players: frozenset[str] | None = None, progress: bool = True) -> dict[str, np.ndarray]:
    """Samples of every record file in ``paths`` (RecordError on a bad file); only the seats
    named in ``players`` when given."""
    from game.records import read_events

    store = SampleArrays()
    for game, path in enumerate(tqdm(paths, desc="records", unit="file", disable=not progress)):
        events = read_events(path)
        if not any(e.get("type") == "start_kyoku" for e in events):
            raise RecordError("the record holds no hand (no start_kyoku event)", path=str(path))
        game_seed = seed ^ zlib.crc32(str(Path(path).name).encode())
        add_game(store, events, game, thesis=thesis, seed=game_seed, players=players)
    return store.arrays()


def dataset_key(paths: list[Path], *, thesis: bool, seed: int,
                players: frozenset[str] | None = None) -> str:
    """Fingerprint of the inputs, so a cached dataset is reused only for the same ones."""
    h = hashlib.sha256()
    for p in paths:
        st = Path(p).stat()
        h.update(f"{Path(p).resolve()}|{st.st_size}|{int(st.st_mtime)}\n".encode())
    # the seed only picks the followed seats of thesis sampling
    who = ",".join(sorted(players)) if players is not None else "*"
    h.update(f"thesis={thesis} seed={seed if thesis else 0} planes={N_PLANES} players={who}".encode())
    return h.hexdigest()[:16]


def load_or_build(paths: list[Path], cache: Path, *, thesis: bool = False, seed: int = 0,
                  players: frozenset[str] | None = None, progress: bool = True) -> dict[str, np.ndarray]:
    """The dataset of ``paths``: from ``cache`` when it was built from the same inputs.

    ``cache`` gets the suffix ``.npz`` when it has another (numpy would add it on writing, and
    the cache would never be found again); an unreadable cache is rebuilt with a warning.
    """
    cache = cache_path(cache)
    key = dataset_key(paths, thesis=thesis, seed=seed, players=players)
    if cache.exists():
        try:
            data = read_npz(cache)
        except RecordError as err:
            unreadable_cache(err)
        else:
            if "key" in data and str(data["key"]) == key:
                return {k: v for k, v in data.items() if k not in ("key", "meta")}
    arrays = build_dataset(paths, thesis=thesis, seed=seed, players=players, progress=progress)
    meta = json.dumps({"files": [str(p) for p in paths], "thesis": thesis, "seed": seed,
                       "players": sorted(players) if players is not None else None})
    write_npz(cache, key=np.array(key), meta=np.array(meta), **arrays)
    return arrays


def cache_path(cache: str | Path) -> Path:
    """A ``--dataset`` cache path as it is written: ``X`` -> ``X.npz``. OutputError when it
    names a directory."""
    cache = Path(cache)
    if cache.suffix != ".npz":
        cache = cache.with_name(cache.name + ".npz")
    if cache.is_dir():
        raise OutputError("--dataset names a directory, not an .npz file", path=str(cache))
    return cache
