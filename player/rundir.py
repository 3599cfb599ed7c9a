"""What ``player.evaluate`` and ``player.selfplay`` share about an output directory: its
``run.json`` (the run's identity, checked when a run is continued), seeds and model versions.

A run is continued only when it is the same run: the same agents, seed and rule, the same
wall stream, and agents that load the same model files (:func:`model_versions`), so that a
resume after retraining cannot silently mix two players in one result.
"""
from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from game.cli import write_atomic
from game.errors import MahjongError, RecordError

RUN = "run.json"
SEED_MAX = 2**32 - 1  # numpy's SeedSequence words: a larger or negative seed would wrap


def check_seed(seed: int) -> int:
    """``--seed`` as given, or MahjongError when it is outside 0..2^32-1 (no silent wrap)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise MahjongError(f"--seed must be an integer in 0..{SEED_MAX}, got {seed!r}")
    return seed


def _shown(path: Path) -> str:
    # Shipped models by their place in the installed tree (the same on every machine).
    root = Path(__file__).resolve().parents[1]
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return str(path.resolve())


def _digest(path: Path) -> str:
    if not path.is_file():
        return "missing"  # the agent reports it when built; the digest only records it
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def model_versions(agents: Iterable[str]) -> dict[str, dict[str, str]]:
    """For each agent name (with options), a digest of every model file it loads:
    ``{"mdp": {"regressors/models/tenpai.json": "3f9c...", ...}, "random": {}}``."""
    from player.registry import model_files

    return {name: {_shown(p): _digest(p) for p in model_files(name)} for name in dict.fromkeys(agents)}


def write_json(path: Path, obj: object) -> None:
    """Write JSON through a temp file and a rename: a kill leaves the old file or the new."""
    write_atomic(path, json.dumps(obj, indent=2, allow_nan=False) + "\n")


def read_run(out_dir: Path, required: Iterable[str] = ()) -> dict:
    """The ``run.json`` of a run directory; RecordError naming it when it is not JSON, not
    an object or lacks one of the ``required`` keys."""
    run_path = Path(out_dir) / RUN
    try:
        run = json.loads(run_path.read_text(encoding="utf-8"))
    except ValueError as e:  # UnicodeDecodeError too
        raise RecordError(f"unreadable run description ({e})", path=str(run_path)) from None
    if not isinstance(run, dict):
        raise RecordError(f"the run description is a {type(run).__name__}, not a JSON object",
                          path=str(run_path))
    missing = [k for k in required if k not in run]
    if missing:
        raise RecordError(f"the run description lacks {', '.join(missing)}", path=str(run_path))
    return run


def check_run(out_dir: Path, run: Mapping, keys: Iterable[str], *, started: bool,
              allow_model_change: bool = False, older: str = "") -> dict:
    """Check that ``out_dir`` may hold ``run``; return what its ``run.json`` is to hold.

    ``started``: the directory already holds results of a run. Then its ``run.json`` must
    exist, be readable and agree with ``run`` on ``keys`` (the run's identity) and on the
    ``models`` (:func:`model_versions`) and ``walls`` (the stream of wall seeds);
    ``allow_model_change`` accepts new models, and the old versions are kept under
    ``earlier_models``. ``older``: the message for a ``run.json`` without ``walls``, a run of
    an older version. Writes nothing: the caller writes the result once every check of its
    own has passed too.
    """
    run_path = Path(out_dir) / RUN
    new = dict(run)
    if started:
        if not run_path.is_file():
            raise MahjongError(f"{out_dir} holds results but no {RUN}: not a run of this "
                               f"command, or its {RUN} was removed; choose another --out")
        keys = list(keys)
        old = read_run(out_dir)
        if old.get("walls") != run.get("walls"):  # checked first: an older run.json lacks more
            why = older if "walls" not in old else f"a run on other walls ({old['walls']!r})"
            raise MahjongError(f"{run_path}: {why}; choose another --out")
        missing = [k for k in (*keys, "models") if k not in old]
        if missing:
            raise RecordError(f"the run description lacks {', '.join(missing)}", path=str(run_path))
        diff = [k for k in keys if old[k] != run[k]]
        if diff:
            have = ", ".join(f"{k}={old[k]!r}" for k in diff)
            raise MahjongError(f"{run_path}: the results there come from another run ({have}); "
                               f"choose another --out")
        changed = _changed_models(old["models"], run["models"], run_path)
        if changed and not allow_model_change:
            raise MahjongError(f"{run_path}: model files changed since this run began "
                               f"({'; '.join(changed)}); choose another --out, or pass "
                               f"--allow-model-change to go on with the new ones")
        earlier = old.get("earlier_models", [])
        if not isinstance(earlier, list):
            raise RecordError("'earlier_models' is not a list", path=str(run_path))
        earlier = list(earlier)
        if changed:
            print(f"warning: {run_path}: going on with changed models ({'; '.join(changed)})",
                  file=sys.stderr)
            earlier.append(old["models"])
        if earlier:
            new["earlier_models"] = earlier
    return new


def _changed_models(old: object, new: Mapping[str, Mapping[str, str]], run_path: Path) -> list[str]:
    """``agent: file`` for every model file whose digest differs (or that came or went)."""
    if not isinstance(old, dict) or not all(isinstance(v, dict) for v in old.values()):
        raise RecordError("'models' is not an object of objects", path=str(run_path))
    out = []
    for agent, files in new.items():
        before = old.get(agent, {})
        out += [f"{agent}: {f}" for f in sorted(set(before) | set(files)) if before.get(f) != files.get(f)]
    return out
