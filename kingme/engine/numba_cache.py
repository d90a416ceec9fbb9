"""Where numba keeps the compiled engine, set before anything is compiled.

numba's ``cache=True`` normally writes next to the source (``__pycache__``), which fails when
kingme is installed read-only (a system package, a container image). It also only checks the
timestamp of the file holding the function it loads, not of the files it calls into, so a
cache can go stale when another core module changes. Both are solved here: the cache lives in a
directory named after a hash of every compiled module's source and the numba version — inside
the package when it is a writable source checkout, otherwise under the user's cache directory
(``$XDG_CACHE_HOME/kingme`` or ``~/.cache/kingme``).

A copy installed by pip (a ``kingme-*.dist-info`` beside it) never gets the cache, writable or
not: pip removes only the files it installed, so a cache left inside would outlive
``pip uninstall kingme`` as a ``kingme`` folder without ``__init__.py`` in site-packages, a
namespace package that Python then finds before an editable install of kingme, and
``python -m kingme`` fails with "cannot import name '__version__' from 'kingme'".

Import this module before numba compiles anything of the engine (``kingme.engine.bitops``
imports it first).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

_HERE = Path(__file__).resolve().parent
#: The modules holding ``@njit`` code, and the data compiled into it; a change to any of them
#: selects a fresh cache.
COMPILED_SOURCES = (
    _HERE / "addresses.py",
    _HERE / "bitops.py",
    _HERE / "movegen.py",
    _HERE / "evaluation.py",
    _HERE / "data" / "evaluation_weights.json",  # read into the compiled evaluation as constants
    _HERE / "network.py",
    _HERE / "network_simd.py",
    _HERE / "data" / "network.json",  # read into the compiled network as constants
    _HERE / "network_training.py",
    _HERE / "search.py",
    _HERE / "endgame.py",
    _HERE / "egdb" / "index.py",
    _HERE / "egdb" / "probe.py",
    _HERE / "egdb" / "build.py",
    _HERE / "egdb" / "verify.py",
    _HERE / "egdb" / "bench.py",
    _HERE.parent / "rules" / "bitboard.py",
)


def _writable(directory: Path) -> bool:
    probe = directory / "__pycache__"
    try:
        probe.mkdir(exist_ok=True)
    except OSError:
        return False
    return os.access(probe, os.W_OK | os.X_OK)


def _installed(package: Path) -> bool:
    """Whether the package was installed by an installer that records its files (pip)."""
    return any(package.parent.glob(f"{package.name}-*.dist-info"))


def cache_directory() -> Path:
    """The directory numba should cache the engine in (created if missing)."""
    import numba

    digest = hashlib.sha256(numba.__version__.encode())
    for source in COMPILED_SOURCES:
        digest.update(source.read_bytes())
    name = f"numba-{digest.hexdigest()[:16]}"
    if not _installed(_HERE.parent) and _writable(_HERE):
        return _HERE / "__pycache__" / name
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "kingme" / name


def configure() -> Path:
    """Point numba's cache at ``cache_directory()``, even if numba was imported already; when
    that cannot be created either (no writable home), use the system's temporary directory."""
    directory = cache_directory()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        directory = Path(tempfile.gettempdir()) / f"kingme-{os.getuid()}" / directory.name
        directory.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(directory)
    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.CACHE_DIR = str(directory)  # type: ignore[attr-defined]
    return directory


CACHE_DIR = configure()
