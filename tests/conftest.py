"""Fixtures shared by every browser suite (web, daily, online): one Chromium per test process.

Playwright's sync API allows one running instance per thread, and an xdist worker may run tests
of several suites, so they all use this session's browser rather than starting their own.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

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
