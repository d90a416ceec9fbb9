"""Fixtures shared by every browser suite (web, daily, online): one Chromium and one
``kingme serve`` per test process.

Playwright's sync API allows one running instance per thread, and an xdist worker may run tests
of several suites, so they all use this session's browser rather than starting their own.

Every test, and every server a test starts, reads its endgame tables from the suite's own folder
(``SUITE_EGDB_DIR``, the small set built there on first use), so the suite gives the same
answers on every machine, whatever larger sets a developer has built in the default folder; and
no ``kingme serve`` a test starts builds a larger set there in the background
(``KINGME_EGDB_PIECES=0``: the 6-piece set would take a quarter of an hour and 4 GB).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import kingme_serve

SUITE_EGDB_DIR = Path(tempfile.gettempdir()) / f"kingme-tests-egdb-{os.getuid()}"
os.environ["KINGME_EGDB_DIR"] = str(SUITE_EGDB_DIR)
os.environ["KINGME_EGDB_PIECES"] = "0"

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


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a ``kingme serve`` started for this test session (this xdist worker)."""
    with kingme_serve(tmp_path_factory) as url:
        yield url
