"""Moving pieces besides click-click (issue 40): drag and drop with the mouse or a finger, a
capture finished by the click on its last square, and, a preference on by default, a capture with
one route left finished by a single click."""

from __future__ import annotations

import itertools

import pytest
from playwright.sync_api import expect
from waiting import wait_until

pytestmark = pytest.mark.browser


def centre(play, square: int) -> tuple[float, float]:
    found = play.square(square).bounding_box()
    return found["x"] + found["width"] / 2, found["y"] + found["height"] / 2


def drag(play, start: int, end: int) -> None:
    page = play.page
    x, y = centre(play, start)
    page.mouse.move(x, y)
    page.mouse.down()
    # The board carries a piece once its drag module has come, which this first press loads: until
    # then the pointer's moves go unheard, so it moves about the piece (farther than a click's
    # wobble) until the board carries it, then on to the end square.
    nudges = itertools.cycle((12, -12))

    def carried() -> bool:
        page.mouse.move(x, y + next(nudges))
        return "dragging" in (page.locator("#board").get_attribute("class") or "").split()

    wait_until(carried, "the board carries the piece")
    page.mouse.move(*centre(play, end), steps=8)
    page.mouse.up()


def one_landing_at_a_time(play) -> None:
    """Turn off the preference that finishes a capture with one route left by its first landing."""
    play.hook("open-settings").click()
    play.hook("one-click-capture").uncheck()
    play.page.keyboard.press("Escape")


def test_a_piece_is_dragged_to_its_square_with_the_mouse(play):
    play.start(opponent="local")
    drag(play, 11, 15)
    play.wait_for_history(1)
    assert play.history() == ["Red 11–15"]


#: A finger on the board, as Chromium reports it: pointer events of type touch.
TOUCH = """([type, square, toward]) => {
    const at = (n) => { const r = document.querySelector(`#board [data-square="${n}"]`).getBoundingClientRect();
                        return [r.x + r.width / 2, r.y + r.height / 2]; };
    const [x, y] = at(square);
    const [tx, ty] = toward ? at(toward) : [x, y];
    const target = type === "pointerdown" ? document.querySelector(`#board [data-square="${square}"] .hit`)
                                          : document.getElementById("board");
    target.dispatchEvent(new PointerEvent(type, { clientX: (x + tx) / 2, clientY: (y + ty) / 2, pointerId: 7,
        pointerType: "touch", isPrimary: true, bubbles: true, button: 0 }));
    return document.getElementById("board").classList.contains("dragging");
}"""


def test_a_piece_is_dragged_with_a_finger(play):
    play.start(opponent="local")
    page = play.page
    page.evaluate(TOUCH, ["pointerdown", 11, None])
    # The finger moves until the board carries the piece (its drag module loads on the first press).
    page.wait_for_function(TOUCH, arg=["pointermove", 11, 15], polling=100)
    page.evaluate(TOUCH, ["pointermove", 15, None])
    page.evaluate(TOUCH, ["pointerup", 15, None])
    play.wait_for_history(1)
    assert play.history() == ["Red 11–15"]


def test_a_double_jump_with_one_route_is_finished_by_its_first_landing(play):
    play.start(opponent="local", position="double-jump")
    play.click(9, 18)
    play.wait_for_history(1)
    assert play.history() == ["Red 9×18×27"]


def test_without_the_preference_the_first_landing_waits_and_the_last_square_finishes(play):
    one_landing_at_a_time(play)
    play.start(opponent="local", position="double-jump")
    play.click(9, 18)
    expect(play.hook("status")).to_contain_text("18")  # continue jumping from 18
    assert play.history() == []
    play.start(opponent="local", position="double-jump")
    play.click(9, 27)  # the last square of the only route ending there
    play.wait_for_history(1)
    assert play.history() == ["Red 9×18×27"]


def test_a_capture_is_dragged_to_its_last_square(play):
    one_landing_at_a_time(play)
    play.start(opponent="local", position="double-jump")
    drag(play, 9, 27)
    play.wait_for_history(1)
    assert play.history() == ["Red 9×18×27"]
