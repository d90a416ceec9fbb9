"""Fixtures shared by every browser suite (web, daily, online): one Chromium and one
``kingme serve`` per test process.

Playwright's sync API allows one running instance per thread, and an xdist worker may run tests
of several suites, so they all use this session's browser rather than starting their own.

Every test, and every server a test starts, reads its endgame tables from the suite's own folder
(``SUITE_EGDB_DIR``, the small set built there on first use), so the suite gives the same
answers on every machine, whatever larger sets a developer has built in the default folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from browser_support import die_with_parent, free_port

SUITE_EGDB_DIR = Path(tempfile.gettempdir()) / f"kingme-tests-egdb-{os.getuid()}"
os.environ["KINGME_EGDB_DIR"] = str(SUITE_EGDB_DIR)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Debian's Chromium, launched once for this test process (this xdist worker)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


#: Seconds a started ``kingme serve`` has to report its engine ready.
SERVE_DEADLINE = 300


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a ``kingme serve`` started for this test session (this xdist worker)."""
    port = free_port()
    env = {**os.environ, "KINGME_DATA_DIR": str(tmp_path_factory.mktemp("data")), "KINGME_ENGINE_WORKERS": "1"}
    log = tmp_path_factory.mktemp("log") / "serve.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "kingme", "serve", "--port", str(port)],
            env=env,
            stdout=output,
            stderr=output,
            preexec_fn=die_with_parent,
        )
    url = f"http://127.0.0.1:{port}"
    # Generous: a server that exits is reported at once (poll), and one that is only slow — an
    # engine worker compiling the numba core on a loaded machine — must not fail the run.
    deadline = time.monotonic() + SERVE_DEADLINE
    while True:
        if process.poll() is not None:
            pytest.fail(f"kingme serve exited with {process.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/api/info", timeout=2).json().get("engineReady"):
                break
        except (httpx.HTTPError, ValueError):
            pass
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"kingme serve did not answer within {SERVE_DEADLINE} s:\n{log.read_text()}")
        time.sleep(0.2)
    yield url
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
