"""What the board says is readable: square numbers, capture marks, landing numbers, a steady
status line, an indicator that hides no square, and a pause menu that offers the way out."""

from __future__ import annotations

import re

import pytest
from browser_support import DESKTOP, play_when_movable
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
PIECE_THEMES = ["red-white", "black-white", "black-red", "blue-red"]
BOARD_THEMES = ["walnut", "tournament", "slate"]


def rgba(text: str) -> tuple[float, float, float, float]:
    """A computed colour, ``rgb(r, g, b)`` or ``rgba(r, g, b, a)``, as numbers."""
    parts = [float(p) for p in re.findall(r"[\d.]+", text)]
    return (parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else 1.0)


def over(top: tuple[float, float, float, float], below: tuple[float, float, float, float]) -> tuple:
    alpha = top[3]
    return (*(alpha * t + (1 - alpha) * b for t, b in zip(top[:3], below[:3], strict=True)), 1.0)


def contrast(one: tuple, two: tuple) -> float:
    """The WCAG contrast ratio of two opaque colours."""

    def luminance(color: tuple) -> float:
        channels = [c / 255 for c in color[:3]]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(one), luminance(two)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def choose(play, **prefs: str) -> None:
    play.hook("open-settings").click()
    for testid, value in prefs.items():
        play.hook(testid.replace("_", "-")).select_option(value)
    play.page.keyboard.press("Escape")


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_square_numbers_are_at_least_11_px_and_stand_out_at_4_5_to_1_on_every_board(new_play, viewport):
    play = new_play(viewport=viewport)
    play.start(opponent="local")
    for board in BOARD_THEMES:
        choose(play, board_theme=board)
        numbers = play.page.locator("#board .sq-number")
        expect(numbers).to_have_count(32)
        shown = numbers.first.evaluate(
            """n => { const svg = n.ownerSVGElement, s = getComputedStyle(n);
                return { px: parseFloat(s.fontSize) * svg.getBoundingClientRect().width / 800, fill: s.fill,
                         halo: s.stroke, order: s.paintOrder,
                         square: getComputedStyle(n.closest('.sq').querySelector('.dark')).fill }; }"""
        )
        assert shown["px"] >= 11, shown
        assert shown["order"].startswith("stroke"), shown  # the outline is under the glyphs
        behind = over(rgba(shown["halo"]), rgba(shown["square"]))
        assert contrast(rgba(shown["fill"]), behind) >= 4.5, (board, shown)


def test_square_numbers_can_still_be_turned_off(play):
    play.hook("open-settings").click()
    play.hook("square-numbers").uncheck()
    play.page.keyboard.press("Escape")
    expect(play.page.locator("#board .sq-number")).to_have_count(0)


def mark_contrast(play, square: int) -> float:
    """The best contrast between a layer of the capture mark on ``square`` and the piece under it."""
    colors = play.square(square).evaluate(
        """cell => ({ body: getComputedStyle(cell.querySelector('.piece-body')).fill,
                      layers: [...cell.querySelectorAll('.capture-mark path')]
                                .map(p => getComputedStyle(p).stroke) })"""
    )
    assert colors["layers"], f"no capture mark on {square}"
    return max(contrast(rgba(layer), rgba(colors["body"])) for layer in colors["layers"])


@pytest.mark.parametrize("theme", PIECE_THEMES)
def test_capture_marks_and_landing_numbers_show_on_every_piece_colour(play, theme):
    choose(play, piece_theme=theme)
    play.start(opponent="local")
    play.move(11, 15)
    play.move(24, 20)
    play.move(15, 19)  # White to move must take the first mover's piece on 19
    assert mark_contrast(play, 19) >= 3
    play.click(23, 16)
    play.wait_for_history(4)
    play.click(12)  # the first mover takes back on 16
    assert mark_contrast(play, 16) >= 3
    landing = play.page.locator("#board .landing-number").first.evaluate(
        "n => ({ fill: getComputedStyle(n).fill, halo: getComputedStyle(n).stroke })"
    )
    assert contrast(rgba(landing["fill"]), rgba(landing["halo"])) >= 4.5


def test_the_status_line_keeps_the_controls_in_place_whatever_it_says(new_play):
    play = new_play(viewport=PHONE)
    choose(play, language="fr")
    play.start(opponent="local")
    controls = play.page.locator(".controls")
    top = controls.bounding_box()["y"]
    statuses = set()
    for action in (
        lambda: play.click(11),
        lambda: play.click(15),
        lambda: play_when_movable(play.page.locator("#board"), 22),  # once the server has answered 11-15
        lambda: play.hook("hint").click(),
    ):
        action()
        statuses.add(play.status())
        assert controls.bounding_box()["y"] == top, play.status()
    assert len(statuses) >= 3


def test_the_thinking_indicator_covers_no_square(play):
    held = []
    play.page.route("**/api/computer", lambda route: held.append(route))
    play.start(opponent="computer", level="random")
    play.click(11, 15)
    expect(play.hook("thinking")).to_be_visible()
    dots = play.hook("thinking").bounding_box()
    board = play.page.locator("#board").bounding_box()
    apart = (
        dots["y"] >= board["y"] + board["height"]
        or dots["y"] + dots["height"] <= board["y"]
        or dots["x"] >= board["x"] + board["width"]
        or dots["x"] + dots["width"] <= board["x"]
    )
    assert apart, (dots, board)
    play.page.unroute("**/api/computer")


def test_the_pause_menu_offers_resume_resign_and_restart(play):
    play.start(opponent="local")
    play.click(11, 15)
    play.wait_for_history(1)
    play.hook("pause").click()
    for testid in ("resume", "pause-resign", "pause-restart"):
        expect(play.hook(testid)).to_be_visible()
    play.hook("pause-restart").click()
    play.start_by(play.hook("confirm").click)  # restarting asks first
    play.wait_for_history(0)
    expect(play.hook("pause-resign")).to_be_hidden()
    play.click(11, 15)
    play.wait_for_history(1)
    play.hook("pause").click()
    play.hook("pause-resign").click()
    play.hook("confirm").click()
    expect(play.hook("result")).to_have_text("Red wins")
