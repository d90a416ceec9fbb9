"""The compiled engine is cached, and the cache works when kingme is installed read-only."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kingme
from kingme.engine import numba_cache


def test_a_writable_source_checkout_keeps_its_cache_inside_the_package() -> None:
    package = Path(numba_cache.__file__).parent
    assert numba_cache.CACHE_DIR.is_relative_to(package) or not os.access(package, os.W_OK)


def test_every_module_with_compiled_code_selects_the_cache() -> None:
    package = Path(kingme.__file__).parent
    compiled = {path for path in package.rglob("*.py") if re.search(r"^from numba", path.read_text(), re.MULTILINE)}
    compiled.add(package / "rules" / "bitboard.py")  # compiled by movegen, not by itself
    compiled.add(package / "engine" / "data" / "evaluation_weights.json")  # constants of the evaluation
    compiled.add(package / "engine" / "data" / "network.json")  # constants of the network
    assert compiled == set(numba_cache.COMPILED_SOURCES)


def test_a_read_only_package_uses_the_user_cache_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(numba_cache, "_writable", lambda directory: False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert numba_cache.cache_directory().parent == tmp_path / "kingme"


def _copy_of_kingme(site: Path) -> Path:
    """``site`` holding a copy of this kingme package without its caches, as an installer
    would lay it out."""
    shutil.copytree(Path(kingme.__file__).parent, site / "kingme", ignore=shutil.ignore_patterns("__pycache__"))
    return site


def test_a_copy_installed_by_pip_caches_in_the_user_directory_even_when_writable(tmp_path: Path) -> None:
    """pip removes only the files it installed: a cache inside would outlive ``pip uninstall``
    as a ``kingme`` namespace folder in site-packages, shadowing any later editable install."""
    site = _copy_of_kingme(tmp_path / "site")
    (site / f"kingme-{kingme.__version__}.dist-info").mkdir()
    home = tmp_path / "home"
    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(home / ".cache")}
    code = "import kingme.engine.numba_cache as c; print(c.__file__); print(c.CACHE_DIR)"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=site)
    assert run.returncode == 0, run.stderr
    module, cache = (Path(line) for line in run.stdout.split())
    assert module.is_relative_to(site)
    assert cache.is_relative_to(home / ".cache" / "kingme")
    assert not list(site.rglob("numba-*"))


def _read_only_run(site: Path, code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``python -c code`` with ``site`` read-only: by permissions for an ordinary user, by a
    read-only bind mount in a private mount namespace for root (root ignores permissions)."""
    command = [sys.executable, "-c", code]
    if os.geteuid() == 0:
        if not shutil.which("unshare"):
            pytest.skip("running as root without unshare: cannot make the package read-only")
        mount = f'mount --bind {site} {site} && mount -o remount,ro,bind {site} && exec "$@"'
        command = ["unshare", "--mount", "sh", "-c", mount, "sh", *command]
    run = subprocess.run(command, env=env, capture_output=True, text=True, cwd=site)
    if os.geteuid() == 0 and "mount" in run.stderr and run.returncode != 0:
        pytest.skip(f"cannot mount read-only here: {run.stderr.strip()[:80]}")
    return run


def test_an_installed_read_only_copy_compiles_once_into_the_user_cache_and_then_loads_it(tmp_path: Path) -> None:
    site = _copy_of_kingme(tmp_path / "site")
    for path in site.rglob("*"):
        path.chmod(0o555 if path.is_dir() else 0o444)
    home = tmp_path / "home"
    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(home / ".cache")}
    code = (
        "import kingme.engine as e, kingme.engine.numba_cache as c; e.warm_up(); print(e.__file__); print(c.CACHE_DIR)"
    )
    try:
        for _ in range(2):  # the first run compiles, the second loads the cache
            run = _read_only_run(site, code, env)
            assert run.returncode == 0, run.stderr
            package, cache = (Path(line) for line in run.stdout.split())
            assert package.is_relative_to(site)
            assert cache.is_relative_to(home / ".cache" / "kingme")
            assert any(cache.rglob("*.nbi")), "numba wrote no cache index"
        assert not any(site.rglob("*.nbi"))
    finally:
        for path in site.rglob("*"):
            path.chmod(0o755)
