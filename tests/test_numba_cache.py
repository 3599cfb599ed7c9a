"""The numba cache of search/ kernels follows the sources of search/."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = "import search, numba; from search._numba_cache import source_digest; " \
        "print(numba.config.CACHE_DIR); print(source_digest())"


def _probe(env):
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, text=True,
                         capture_output=True, check=True).stdout.split()
    return out[0], out[1]


def test_cache_folder_is_named_after_the_sources(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["MAHJONG_MDP_CACHE"] = str(tmp_path)
    folder, digest = _probe(env)
    assert Path(folder) == tmp_path / "numba" / digest and Path(folder).is_dir()


def test_user_numba_cache_dir_wins(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    folder, _ = _probe(env)
    assert Path(folder) == tmp_path / "mine"
