"""Fixtures of the web tests: pages on a real ``kingme serve`` (``server``, in ``tests/conftest.py``).

Every xdist worker starts its own server (one engine worker, its own data directory) and uses
the worker's one Chromium; every test gets a fresh browser context, so nothing is shared between
tests: not the port, not the localStorage. Screenshots go to ``test-artifacts/`` (gitignored).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from browser_support import Play, page_factory


@pytest.fixture
def new_play(browser: object, server: str) -> Iterator[Callable[..., Play]]:
    """A factory of pages with context options (viewport, motion, init script), closed afterwards."""
    with page_factory(browser, server) as make:
        yield make


@pytest.fixture
def play(new_play: Callable[..., Play]) -> Play:
    """A fresh page (its own context and storage) on the app, at desktop size."""
    return new_play()
