"""Fixtures of the daily tests: a small puzzle collection and an API client on a fixed day."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from browser_support import WAIT_MS
from starlette.testclient import TestClient
from waiting import wait_until

from kingme.daily.puzzles import Collection, Puzzle
from kingme.engine import choose_move
from kingme.game import Game
from kingme.server.app import create_app
from kingme.server.settings import Settings

#: The day the API tests live on.
TODAY = date(2026, 11, 29)


class InstantEngine:
    """The engine pool's interface, answering in-process at once (these tests never wait on search)."""

    async def choose_move(self, record: dict[str, Any], level: str) -> str:
        return str(choose_move(Game.from_record(record), "random"))

    async def hint(self, record: dict[str, Any]) -> str:
        return str(Game.from_record(record).legal_moves()[0])

    def close(self) -> None:
        """Nothing to stop."""


def small_collection() -> Collection:
    """Three puzzles: a one-move double jump, a three-ply line and a classic with a source. The
    line lists 10-14 as a slower win of its first move and 9-13 as a move that also wins, only
    to show how each is told."""
    return Collection(
        (
            Puzzle("double-jump", "B:W14,23:B9", ("9x18x27",), "Double jump", "", "easy"),
            Puzzle(
                "opening-trade",
                "B:W21-32:B1-12",
                ("11-15", "22-18", "15x22"),
                "Trade",
                "",
                "medium",
                (("10-14",), ()),
                (("9-13",), ()),
            ),
            Puzzle(
                "seeing-is-believing",
                "W:W30,29,22,21,9,6:B24,20,16,13,8,7",
                ("22-17", "13x22", "29-25", "22x29", "30-25", "29x22", "21-17", "22x13", "6-1", "13x6", "1x28"),
                "Seeing is believing",
                "The Checker Maven, Beginner's Corner",
                "hard",
            ),
        )
    )


@pytest.fixture
def client(tmp_path: Any) -> Iterator[TestClient]:
    app = create_app(Settings(data_dir=tmp_path, engine_workers=1), engine_factory=lambda workers: InstantEngine())
    app.state.puzzles = small_collection()
    app.state.today = TODAY
    with TestClient(app) as test_client:
        yield test_client


# ---- browser flows -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def daily_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on a free port, in a thread: instant engine, the small collection, today fixed."""
    import socket
    import threading

    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = Settings(data_dir=tmp_path_factory.mktemp("daily-data"), engine_workers=1)
    app = create_app(settings, engine_factory=lambda workers: InstantEngine())
    app.state.puzzles = small_collection()
    app.state.today = TODAY
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started or not thread.is_alive(), "the daily test server started or stopped")
    if not server.started:
        pytest.fail("the daily test server stopped at start-up")
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="session")
def chromium(browser: Any) -> Any:
    """The test process's one Chromium (``tests/conftest.py``): Playwright runs once per thread."""
    return browser


@pytest.fixture
def page(chromium: Any, daily_server: str) -> Iterator[Any]:
    """A fresh page (its own storage) on the app, ready; fails the test on any page error."""
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    context.set_default_timeout(WAIT_MS)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(daily_server)
    tab.wait_for_selector("html[data-ready=true]")
    yield tab
    context.close()
    assert not errors, f"errors in the page: {errors}"
