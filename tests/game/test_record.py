"""A game is its setup plus its moves: ``record()`` writes that, ``from_record()`` rebuilds the
same game from it and refuses hostile records with a message naming the problem."""

import pytest

from kingme import Game, Setup
from kingme.game import MAX_RECORD_MOVES
from kingme.rules import GameOverError, IllegalMoveError, KingmeError

OPENING = ["11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14"]


def same(a, b):
    return (a.record(), a.board.fen(), a.result, a.quiet_plies, a.repetitions, a.steps, a.crowned) == (
        b.record(),
        b.board.fen(),
        b.result,
        b.quiet_plies,
        b.repetitions,
        b.steps,
        b.crowned,
    )


@pytest.mark.parametrize(
    "game",
    [
        Game(),
        Game(moves=OPENING),
        Game(Setup.named("double-jump"), ["9x18x27"]),
        Game(Setup("casual", "B:W14,23:B9", "seed two"), ["9x18"]),
        Game(Setup(fen="W:W9,10,K31:B5,6,13,14,22,23"), ["10x1"]),
    ],
    ids=["empty", "opening", "won", "casual", "crowning"],
)
def test_a_record_rebuilds_the_same_game(game):
    assert same(Game.from_record(game.record()), game)


def test_a_record_keeps_how_a_game_ended_from_outside():
    resigned = Game(moves=OPENING)
    resigned.resign("white")
    agreed = Game(moves=OPENING)
    agreed.agree_draw()
    out_of_time = Game(moves=OPENING)
    out_of_time.lose_on_time("black")
    for game in (resigned, agreed, out_of_time):
        assert same(Game.from_record(game.record()), game)
    assert resigned.record()["ending"] == {"resigned": "white"}
    assert out_of_time.record()["ending"] == {"timeout": "black"}
    assert (out_of_time.result.winner, out_of_time.result.reason) == ("white", "time")


def test_a_record_names_moves_by_their_full_path():
    record = Game(Setup.named("double-jump"), ["9x27"]).record()
    assert record == {
        "setup": {"variant": "american", "fen": "B:W14,23:B9", "seed": "checkers-1"},
        "moves": ["9x18x27"],
        "ending": None,
    }


def test_a_record_may_leave_out_defaults_and_use_a_named_position():
    assert Game.from_record({}).record() == Game().record()
    game = Game.from_record({"setup": {"position": "double-jump"}, "moves": [[9, 18, 27]]})
    assert game.result.reason == "no-pieces"


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        (None, "must be an object"),
        ([], "must be an object"),
        ("moves", "must be an object"),
        ({"moves": [], "cheat": 1}, "unknown game record field"),
        ({"moves": "11-15"}, "moves must be a list"),
        ({"moves": ["11-15"] * (MAX_RECORD_MOVES + 1)}, "at most 16000"),
        ({"moves": ["11-15", "11-15"]}, "move 2: '11-15' is not legal for white"),
        ({"moves": ["22-18"]}, "move 1:"),
        ({"moves": [None]}, "move 1: a move must be text"),
        ({"moves": [{"from": 11}]}, "move 1: a move must be text"),
        ({"moves": [[11, True]]}, "move 1: a move must be text"),
        ({"moves": [[11, 99]]}, "move 1: the path"),
        ({"moves": ["x" * 10_000]}, "is not move text"),
        ({"setup": "standard"}, "setup must be an object"),
        ({"setup": {"fen": "B:W33:B1"}}, "square 33"),
        ({"setup": {"fen": 12}}, "fen must be text"),
        ({"setup": {"variant": "italian"}}, "unknown variant"),
        ({"setup": {"variant": ["american"]}}, "unknown variant"),
        ({"setup": {"seed": "   "}}, "1 to 96 characters"),
        ({"setup": {"seed": 5}}, "seed must be text"),
        ({"setup": {"position": "endgame"}}, "unknown position"),
        ({"setup": {"position": ["standard"]}}, "unknown position"),
        ({"setup": {"position": "standard", "fen": "B:W21-32:B1-12"}}, "not both"),
        ({"setup": {"colour": "red"}}, "unknown setup field"),
        ({"setup": {"position": "double-jump"}, "moves": ["9x18x27", "27-31"]}, "move 2: the game is over"),
        ({"ending": "resigned"}, "ending must be"),
        ({"ending": {"resigned": "red"}}, "choose black or white"),
        ({"ending": {"resigned": "white", "agreed": True}}, "ending must be"),
        ({"setup": {"position": "double-jump"}, "moves": ["9x18x27"], "ending": {"agreed": True}}, "game is over"),
    ],
)
def test_a_hostile_record_is_refused_naming_the_problem(record, problem):
    with pytest.raises(KingmeError, match=problem):
        Game.from_record(record)


def test_errors_while_replaying_a_record_say_which_move():
    with pytest.raises(IllegalMoveError, match=r"^move 3: "):
        Game.from_record({"moves": ["11-15", "23-19", "23-19"]})
    with pytest.raises(GameOverError, match=r"^move 2: "):
        Game(Setup.named("double-jump"), ["9x18x27", "1-5"])
