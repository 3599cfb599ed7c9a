"""Build and install the mahjong MDP player.

The packages are the layers of DESIGN.md. Cython modules (``*.pyx``) anywhere in
them are compiled here, so ``pip install -e .`` yields a ready project.
"""
from pathlib import Path

import numpy
from setuptools import Extension, find_packages, setup

PACKAGES = ["game", "abstractions", "search", "regressors", "cnn", "player"]


def cython_extensions() -> list:
    sources = sorted(p for pkg in PACKAGES for p in Path(pkg).rglob("*.pyx"))
    if not sources:
        return []
    from Cython.Build import cythonize

    exts = [
        Extension(
            ".".join(src.with_suffix("").parts),
            [str(src)],
            include_dirs=[numpy.get_include()],
            extra_compile_args=["-O3"],
        )
        for src in sources
    ]
    return cythonize(exts, language_level=3, quiet=True)


setup(
    name="mahjong-mdp",
    version="0.1.0",
    description="Explainable Riichi Mahjong AI: expected-rank MDP abstraction (Kurita & Hoki) with learned estimators",
    python_requires=">=3.10",
    packages=find_packages(include=[f"{p}*" for p in PACKAGES]),
    package_data={"": ["models/*", "models/*/*", "models/*/*/*", "*.json", "*.npz", "*.pt"]},  # tables/<name>/ too
    ext_modules=cython_extensions(),
    install_requires=[
        "riichienv==0.4.11",
        "numpy>=1.26",
        "numba>=0.59",
        "scikit-learn>=1.4",
        # 2.13.0 is the CPU build; an open range can pull a multi-GB CUDA build.
        "torch==2.13.0",
        "cython>=3.0",
        "networkx>=3.0",
        "scipy>=1.11",
        "matplotlib>=3.7",
        "tqdm>=4.60",
    ],
    extras_require={
        # loguru and requests: what mjai (installed --no-deps, see the README) needs for the arena
        # test; ray: the tests play on a local Ray (--backend ray), about 20 s to install.
        "test": ["pytest>=7", "mahjong==2.1.0", "hypothesis>=6", "loguru", "requests", "ray>=2.9"],
        "ray": ["ray>=2.9"],
    },
)
