"""Fixtures of the web tests: a real ``kingme serve`` on a free port, Chromium, and a page driver.

Every xdist worker starts its own server (one engine worker, its own data directory) and uses
the worker's one Chromium (``browser``, in ``tests/conftest.py``); every test gets a fresh
browser context, so nothing is shared between tests: not the port, not the
localStorage. Screenshots go to ``test-artifacts/`` at the top of the work tree (gitignored).
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
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 740}


def _die_with_parent() -> None:
    """In the server's process: be stopped if the test session dies without its teardown."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a ``kingme serve`` started for this test session (this xdist worker)."""
    port = free_port()
    env = {**os.environ, "KINGME_DATA_DIR": str(tmp_path_factory.mktemp("data")), "KINGME_ENGINE_WORKERS": "1"}
    log = tmp_path_factory.mktemp("log") / "serve.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "kingme", "serve", "--port", str(port)],
            env=env, stdout=output, stderr=output, preexec_fn=_die_with_parent,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
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
            pytest.fail(f"kingme serve did not answer within 90 s:\n{log.read_text()}")
        time.sleep(0.2)
    yield url
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


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

    def start(self, **choices: str) -> None:
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
        return [int(n) for n in self.page.locator("#board .sq:has([data-movable=true])").evaluate_all(
            "cells => cells.map(c => c.dataset.square)")]

    def targets(self) -> list[int]:
        return [int(n) for n in self.page.locator("#board [data-target=true]").evaluate_all(
            "cells => cells.map(c => c.dataset.square)")]

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


def _context(browser: object, viewport: dict[str, int], motion: str = "reduce") -> object:
    """A browser context; moves are not animated unless ``motion`` is "no-preference"."""
    return browser.new_context(viewport=viewport, reduced_motion=motion)


@pytest.fixture
def play(browser: object, server: str) -> Iterator[Play]:
    """A fresh page (its own context and storage) on the app, at desktop size."""
    context = _context(browser, DESKTOP)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    driver = Play(page, server)
    driver.open()
    yield driver
    context.close()
    assert not errors, f"errors in the page: {errors}"


@pytest.fixture
def new_play(browser: object, server: str) -> Iterator[object]:
    """A factory of pages with context options (viewport, init scripts...), closed afterwards."""
    contexts = []
    errors: list[str] = []

    def make(viewport: dict[str, int] = DESKTOP, init_script: str | None = None, motion: str = "reduce") -> Play:
        context = _context(browser, viewport, motion)
        context.set_default_timeout(15_000)
        if init_script:
            context.add_init_script(init_script)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        driver = Play(page, server)
        driver.open()
        return driver

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"errors in the page: {errors}"
