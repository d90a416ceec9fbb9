"""js/boardview.js, what the board shows and what a click picks, as a unit in Chromium.

The game and the puzzle both draw their boards from ``boardView`` and follow clicks with ``pick``.
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

#: A state with a forked double jump from 9 (over 14, then 23 or 22) and a step from 10.
STATE = {
    "board": {
        "9": {"color": "black", "kind": "man"},
        "10": {"color": "black", "kind": "man"},
        "14": {"color": "white", "kind": "man"},
        "22": {"color": "white", "kind": "man"},
        "23": {"color": "white", "kind": "king"},
    },
    "history": [{"color": "white", "path": [26, 23], "captures": []}],
    "moves": [
        {"path": [9, 18, 27], "captures": [14, 23], "notation": "9x18x27"},
        {"path": [9, 18, 25], "captures": [14, 22], "notation": "9x18x25"},
        {"path": [10, 15], "captures": [], "notation": "10-15"},
    ],
    "variant": "american",
}


def shown(play: Any, partial: list[int], playable: bool = True) -> dict[str, Any]:
    """boardView for STATE and ``partial``, with Sets and Maps as sorted lists."""
    return play.page.evaluate(
        """async ([state, partial, playable]) => {
            const { boardView } = await import('/js/boardview.js');
            const view = boardView({ state, partial, playable, label: () => '' });
            const sorted = (set) => [...set].sort((a, b) => a - b);
            return {
                pieces: view.pieces, movable: sorted(view.movable), selected: view.selected,
                targets: [...view.targets].sort((a, b) => a[0] - b[0]), capturable: sorted(view.capturable),
                lastMove: view.lastMove,
            };
        }""",
        [STATE, partial, playable],
    )


def picked(play: Any, partial: list[int], square: int, casual: bool = False) -> dict[str, Any]:
    return play.page.evaluate(
        """async ([moves, partial, square, casual]) => {
            const { pick } = await import('/js/boardview.js');
            return pick(moves, partial, square, casual);
        }""",
        [STATE["moves"], partial, square, casual],
    )


def test_before_a_pick_the_pieces_that_can_move_and_the_pieces_that_can_be_taken_are_marked(play: Any) -> None:
    view = shown(play, [])
    assert view["movable"] == [9, 10]
    assert view["capturable"] == [14, 22, 23]
    assert view["targets"] == [] and view["selected"] is None
    assert view["lastMove"] == [26, 23]


def test_a_picked_piece_shows_its_next_landing_and_the_landing_numbers_of_its_jumps(play: Any) -> None:
    view = shown(play, [9])
    assert view["selected"] == 9
    assert view["targets"] == [
        [18, {"next": True, "numbers": [1]}],
        [25, {"next": False, "numbers": [2]}],
        [27, {"next": False, "numbers": [2]}],
    ]


def test_a_started_jump_moves_its_piece_and_marks_the_taken_one(play: Any) -> None:
    view = shown(play, [9, 18])
    assert "9" not in view["pieces"] and view["pieces"]["18"]["color"] == "black"
    assert view["pieces"]["14"]["taken"] is True
    assert view["movable"] == [18]
    assert [square for square, _ in view["targets"]] == [25, 27]
    assert view["capturable"] == [22, 23]
    assert view["lastMove"] == []


def test_a_board_that_cannot_be_played_marks_nothing(play: Any) -> None:
    view = shown(play, [], playable=False)
    assert view["movable"] == [] and view["capturable"] == [] and view["targets"] == []
    assert view["lastMove"] == [26, 23]


def test_a_click_picks_a_piece_follows_a_route_and_completes_it(play: Any) -> None:
    assert picked(play, [], 9) == {"kind": "select", "partial": [9]}
    assert picked(play, [9], 18) == {"kind": "extend", "partial": [9, 18], "route": None}
    assert picked(play, [9, 18], 27) == {"kind": "extend", "partial": [9, 18, 27], "route": STATE["moves"][0]}
    assert picked(play, [10], 15) == {"kind": "extend", "partial": [10, 15], "route": STATE["moves"][2]}


def test_a_click_elsewhere_changes_the_pick_drops_it_or_is_refused_mid_jump(play: Any) -> None:
    assert picked(play, [9], 10) == {"kind": "select", "partial": [10]}
    assert picked(play, [9], 9) == {"kind": "clear", "partial": []}
    assert picked(play, [9], 30) == {"kind": "clear", "partial": []}
    assert picked(play, [], 30) == {"kind": "none", "partial": []}
    assert picked(play, [9, 18], 10) == {"kind": "refused", "partial": [9, 18]}
    assert picked(play, [9, 18], 10, casual=True) == {"kind": "select", "partial": [10]}
