"""What the browser suites share: the page driver ``Play``, sizes, and a factory of pages.

Importable from every test module (``pythonpath = ["tests"]`` in pyproject.toml). The fixtures
themselves (``browser``, ``server``) are in ``tests/conftest.py``.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 740}
#: How long a page may take to show what a test waits for: an action's bound and an assertion's
#: alike. Playwright's assertions default to 5 s, a third of the actions' bound; on this shared
#: 2-core machine under a full test run, a move going from one page through the server to another
#: was once seen to take longer than that (the suite's two online tests that failed so waited).
#: 30 s since the analysis board's tests: its first lines wait for the server's one engine worker,
#: which may still be finishing a depth another test's stream asked for (up to ``STEP_NODES``), and
#: under heavy load a wait of 15 s ran out. The bound only says when to give up; a passing test
#: waits no longer than what it checks takes.
WAIT_MS = 30_000
expect.set_options(timeout=WAIT_MS)


#: Boxes whose text must fit: controls, tabs, labels, and the strips that hold them in a row.
TEXT_BOXES = "button, [role=tab], label, .mode, #modes, .player-name, .player-role, .status, h1, h2, .result-actions"

_OVERFLOWING = f"""() => [...document.querySelectorAll({TEXT_BOXES!r})]
  .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .filter(e => !e.closest('.visually-hidden'))
  .filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => `${{e.tagName.toLowerCase()}}#${{e.id || e.dataset.testid || e.className}} `
            + `"${{e.textContent.trim().slice(0, 40)}}" ${{e.scrollWidth}} > ${{e.clientWidth}}`)"""


def overflowing_text(page: object) -> list[str]:
    """The shown boxes of ``TEXT_BOXES`` whose text is wider than the box (empty when all fit)."""
    return page.evaluate(_OVERFLOWING)


def die_with_parent() -> None:
    """In the server's process: be stopped if the test session dies without its teardown."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Play:
    """Drives the page the way a player does, through the hooks of issue 4 only.

    Squares are looked up in the game's board (``#board``): the puzzle view keeps a board too.
    """

    def __init__(self, page: object, url: str) -> None:
        self.page = page
        self.url = url

    def open(self) -> None:
        self.page.goto(self.url)
        self.page.wait_for_selector("html[data-ready=true]")

    def hook(self, testid: str) -> object:
        return self.page.get_by_test_id(testid)

    def square(self, n: int) -> object:
        return self.page.locator(f'#board [data-square="{n}"]')

    def open_setup(self) -> None:
        """Show the match setup (it is shown before the first game, and on New game after)."""
        if not self.hook("start").is_visible():
            self.hook("new-game").click()
        expect(self.hook("start")).to_be_visible()

    def start(self, **choices: str) -> None:
        self.open_setup()
        for name, value in choices.items():
            if name == "seed":
                self.hook("seed").fill(value)
            else:
                self.hook(name).select_option(value)
        self.start_by(lambda: self.hook("start").click())

    def start_by(self, action: Callable[[], None]) -> None:
        """Do ``action`` and wait until it has started a new game."""
        html = self.page.locator("html")
        games = int(html.get_attribute("data-games") or 0)
        action()
        expect(html).to_have_attribute("data-games", str(games + 1))

    def click(self, *squares: int) -> None:
        for n in squares:
            self.square(n).click()

    def move(self, *squares: int) -> None:
        """Play one move by clicking its squares, and wait until the move list shows it: the
        server answers each move, and a click before its answer is a click on the old position."""
        played = self.page.locator("[data-testid=history] li").count()
        self.click(*squares)
        self.wait_for_history(played + 1)

    def wait_for_stepper(self) -> None:
        """Wait until the game can be stepped through: the stepper (stepping.js) comes after the
        game's first move, and a click on the move list before it is a click nobody hears."""
        expect(self.hook("step-first")).to_be_visible()

    def status(self) -> str:
        return self.hook("status").text_content() or ""

    def history(self) -> list[str]:
        return [" ".join(text.split()) for text in self.page.locator("[data-testid=history] li").all_text_contents()]

    def wait_for_history(self, length: int) -> None:
        expect(self.page.locator("[data-testid=history] li")).to_have_count(length)

    def wait_for_turn(self) -> bool:
        """Wait until a piece can be moved (True) or the game is over (False)."""
        self.page.wait_for_selector("#board [data-movable=true], [data-testid=result]", timeout=30_000)
        return not self.hook("result").is_visible()

    def movable(self) -> list[int]:
        return [
            int(n)
            for n in self.page.locator("#board .sq:has([data-movable=true])").evaluate_all(
                "cells => cells.map(c => c.dataset.square)"
            )
        ]

    def targets(self) -> list[int]:
        return [
            int(n)
            for n in self.page.locator("#board [data-target=true]").evaluate_all(
                "cells => cells.map(c => c.dataset.square)"
            )
        ]

    def play_any_turn(self) -> None:
        """Select the first movable piece and follow its first route to the end of the turn."""
        start = self.movable()[0]
        self.click(start)
        moves = len(self.history())
        while True:
            targets = self.targets()
            if not targets:
                break
            self.click(targets[0])
            if len(self.history()) > moves or self.page.locator("[data-testid=end-turn]:visible").count():
                break
        if self.page.locator("[data-testid=end-turn]:visible").count():
            self.hook("end-turn").click()

    def import_text(self, text: str) -> None:
        self.hook("import-pdn").click()
        self.hook("pdn-text").fill(text)
        self.start_by(lambda: self.hook("pdn-load").click())

    def screenshot(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


def play_when_movable(board: object, *squares: int | str) -> None:
    """Click ``squares`` on ``board`` (a board's locator) once the piece on the first can move. A
    board takes no move until the position it shows has come from the server, and a click before
    that is lost, whatever text has already been drawn around it."""
    expect(board.locator(f'[data-square="{squares[0]}"] [data-movable=true]')).to_have_count(1)
    for square in squares:
        board.locator(f'[data-square="{square}"]').click()


def held_back(path: str, milliseconds: int = 1500) -> str:
    """An init script that holds the server's answers to ``path`` back ``milliseconds``, so that a
    test uses the page before they come."""
    return f"""
      const fetchNow = window.fetch;
      window.fetch = (url, options) => String(url).endsWith("{path}")
        ? new Promise((resolve) => setTimeout(() => resolve(fetchNow(url, options)), {milliseconds}))
        : fetchNow(url, options);
    """


@contextmanager
def page_factory(browser: object, url: str, driver: type[Play] = Play) -> Iterator[Callable[..., Play]]:
    """Yield ``make(viewport=DESKTOP, motion="reduce", init_script=None)``: a fresh context and page
    on the app, driven by ``driver``. Moves are animated only with ``motion="no-preference"``.
    Closes every context afterwards and fails if any page raised a JavaScript error."""
    contexts = []
    errors: list[str] = []

    def make(viewport: dict[str, int] = DESKTOP, motion: str = "reduce", init_script: str | None = None) -> Play:
        context = browser.new_context(viewport=viewport, reduced_motion=motion)
        context.set_default_timeout(WAIT_MS)
        if init_script:
            context.add_init_script(init_script)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page_driver = driver(page, url)
        page_driver.open()
        return page_driver

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"errors in the page: {errors}"


#: Seconds a started ``kingme serve`` has to report its engine ready.
SERVE_DEADLINE = 300


@contextmanager
def kingme_serve(tmp_path_factory: pytest.TempPathFactory, **settings: str) -> Iterator[str]:
    """A ``kingme serve`` with ``settings`` added to its environment (``KINGME_…``), its URL
    until the block ends. Hosts may pick the test-only time controls of a few seconds, so the
    online tests can see a flag fall. Every test's browser comes from 127.0.0.1, so the rooms a
    server allows an address (30 an hour by default) would be shared by all the tests an xdist
    worker happens to run: how many create a room depends on the scheduling, and the 31st would
    be refused. The limit is raised far past any run; tests of the limit set their own."""
    port = free_port()
    env = {**os.environ, "KINGME_DATA_DIR": str(tmp_path_factory.mktemp("data")), "KINGME_ENGINE_WORKERS": "1"}
    env |= {"KINGME_TEST_TIME_CONTROLS": "1", "KINGME_ROOMS_PER_HOUR": "100000", **settings}
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
    try:
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
