"""On-disk caches of search/: numba's compiled kernels and the shanten tables follow the code.

The expectation is behavioural, not the digest function's own output: a copy of ``search/``
whose sources are unchanged finds the same cache, and a copy with one source line changed
gets another one.
"""
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from search import _shanten_tables

ROOT = Path(__file__).resolve().parents[1]
PROBE = "import search, numba; print(numba.config.CACHE_DIR)"


def _copy_search(dest: Path) -> Path:
    """A copy of the search package (sources only) in ``dest/search``."""
    shutil.copytree(ROOT / "search", dest / "search", ignore=shutil.ignore_patterns("__pycache__", "_cache"))
    return dest / "search"


def _cache_dir(pkg_root: Path, cache: Path) -> Path:
    """numba's cache folder in a fresh interpreter that imports ``search`` from ``pkg_root``."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env["MAHJONG_MDP_CACHE"] = str(cache)
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=pkg_root, env=env, text=True,
                         capture_output=True, check=True).stdout.split()
    return Path(out[0])


def _edit(path: Path) -> None:
    path.write_text(path.read_text() + "\n# a change\n")


def test_numba_cache_folder_changes_with_any_source_of_search(tmp_path):
    cache = tmp_path / "cache"
    first, second = tmp_path / "a", tmp_path / "b"
    _copy_search(first)
    _copy_search(second)
    folder = _cache_dir(first, cache)
    assert folder.parent == cache / "numba" and folder.is_dir()
    assert _cache_dir(second, cache) == folder  # the same sources, the same compiled code
    # A kernel module that another one calls (hand_graph calls the shanten kernels).
    _edit(second / "search" / "shanten.py")
    changed = _cache_dir(second, cache)
    assert changed != folder and changed.parent == cache / "numba"
    (second / "search" / "notes.txt").write_text("not a source")
    assert _cache_dir(second, cache) == changed


def test_user_numba_cache_dir_wins(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, text=True,
                         capture_output=True, check=True).stdout.split()
    assert Path(out[0]) == tmp_path / "mine"


def _tables_module(path: Path):
    spec = importlib.util.spec_from_file_location(f"tables_copy_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shanten_table_file_follows_the_code_that_builds_it(tmp_path):
    same, edited = tmp_path / "same", tmp_path / "edited"
    for d in (same, edited):
        d.mkdir()
        shutil.copy(_shanten_tables.__file__, d / "_shanten_tables.py")
    _edit(edited / "_shanten_tables.py")
    name = _shanten_tables._file_name()
    assert name.endswith(".npz") and "_v" not in name  # no hand-bumped version
    assert _tables_module(same / "_shanten_tables.py")._file_name() == name
    assert _tables_module(edited / "_shanten_tables.py")._file_name() != name


def test_shanten_tables_are_cached_and_a_cut_file_rebuilt(tmp_path, monkeypatch):
    expected = _shanten_tables.build_tables()  # built now, not read from any cache
    monkeypatch.setattr(_shanten_tables, "_cache_dirs", lambda: [tmp_path])
    monkeypatch.setattr(_shanten_tables, "_TABLES", None)
    path = tmp_path / _shanten_tables._file_name()
    path.write_bytes(b"PK\x03\x04 cut short")
    got = _shanten_tables.load_tables()
    assert all(np.array_equal(a, b) for a, b in zip(got, expected))
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # rewritten whole, no temp left
    monkeypatch.setattr(_shanten_tables, "_TABLES", None)
    monkeypatch.setattr(_shanten_tables, "build_tables", lambda: (_ for _ in ()).throw(AssertionError))
    again = _shanten_tables.load_tables()  # from the file: building would raise
    assert all(np.array_equal(a, b) for a, b in zip(again, expected))
