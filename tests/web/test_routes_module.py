"""js/routes.js, the route picking shared by the game and the puzzle, as a unit in Chromium."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

#: Two routes from 9 sharing their first landing (a fork after 18), and a step from 10.
MOVES = [
    {"path": [9, 18, 27], "captures": [14, 23]},
    {"path": [9, 18, 25], "captures": [14, 22]},
    {"path": [10, 15], "captures": []},
]


def picked(play, call: str) -> object:
    """The result of ``call`` on the module, with ``moves`` bound; Sets come back as sorted lists."""
    return play.page.evaluate(
        f"""async (moves) => {{
            const routes = await import('/js/routes.js');
            const value = {call};
            return value instanceof Set ? [...value].sort((a, b) => a - b) : value;
        }}""",
        MOVES,
    )


def test_routes_are_followed_square_by_square(play):
    assert len(picked(play, "routes.routesFrom(moves, [])")) == 3
    assert len(picked(play, "routes.routesFrom(moves, [9, 18])")) == 2
    assert picked(play, "routes.routesFrom(moves, [9, 19])") == []


def test_where_a_turn_starts_and_where_it_can_go_next(play):
    assert picked(play, "routes.startSquares(moves)") == [9, 10]
    assert picked(play, "routes.nextSquares(moves, [9])") == [18]
    assert picked(play, "routes.nextSquares(moves, [9, 18])") == [25, 27]
    assert picked(play, "routes.nextSquares(moves, [9, 18, 27])") == []


def test_a_whole_route_is_recognised_and_a_part_of_one_is_not(play):
    assert picked(play, "routes.exactRoute(moves, [9, 18])") is None
    assert picked(play, "routes.exactRoute(moves, [9, 18, 25])") == MOVES[1]
    assert picked(play, "routes.exactRoute(moves, [10, 15])") == MOVES[2]
