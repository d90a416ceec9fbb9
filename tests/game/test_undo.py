"""Undo takes back whole turns, up to the last 100, and restores everything derived from them;
a finished game cannot be undone."""

import random

import pytest

from kingme import Game, Setup
from kingme.game import UNDO_LIMIT
from kingme.rules import UndoError


def snapshot(game):
    return (
        game.board.fen(),
        game.turn,
        [str(m) for m in game.moves],
        list(game.crowned),
        game.quiet_plies,
        game.repetitions,
        dict(+game._seen),  # positions seen, with how often
        game.steps,
        game.result,
        game.legal_moves(),
        game.record(),
    )


def long_game(plies):
    """A seeded random game from the start that is still going after ``plies`` turns."""
    for seed in range(100):
        rng, game = random.Random(seed), Game()
        while len(game.moves) < plies and not game.is_over:
            game.push(rng.choice(game.legal_moves()))
        if not game.is_over:
            return game
    raise AssertionError("no seed gave a long enough game")


def test_undo_restores_every_derived_value_turn_by_turn():
    game = long_game(60)
    snapshots = []
    replay = Game()
    for move in game.moves:
        snapshots.append(snapshot(replay))
        replay.push(move)
    for before in reversed(snapshots):
        replay.undo()
        assert snapshot(replay) == before


def test_undo_restores_the_repetition_count():
    game = Game(Setup(fen="B:WK32:BK1"), ["1-6", "32-27", "6-1", "27-32", "1-6", "32-27", "6-1"])
    assert game._seen[game.board.key()] == 2
    game.undo()
    game.undo()
    assert game.repetitions == 2  # the position after 1-6, second time
    game.push("32-27")
    game.push("6-1")
    game.push("27-32")
    assert game.result.reason == "repetition"


def test_undo_restores_the_no_progress_count():
    game = Game(Setup(fen="B:WK32:BK1,9"), ["1-5", "32-27", "9-14", "27-23"])
    assert game.quiet_plies == 1
    game.undo()
    assert game.quiet_plies == 0
    game.undo()
    assert game.quiet_plies == 2


def test_undo_of_a_crowning_move_uncrowns_the_man():
    game = Game(Setup(fen="W:W9,10,K31:B5,6,13,14,22,23"), ["10x1"])
    assert game.board.piece_at(1).king and game.crowned == [True]
    game.undo()
    assert game.board.fen() == "W:W9,10,K31:B5,6,13,14,22,23" and game.crowned == []


def test_undo_returns_the_move_it_took_back():
    game = Game(moves=["11-15"])
    assert str(game.undo()) == "11-15"


def test_only_the_last_100_turns_can_be_undone():
    game = long_game(UNDO_LIMIT + 5)
    assert game.undoable == UNDO_LIMIT
    for _ in range(UNDO_LIMIT):
        game.undo()
    assert game.undoable == 0
    before = snapshot(game)
    with pytest.raises(UndoError, match="only the last 100 turns"):
        game.undo()
    assert snapshot(game) == before
    assert len(game.moves) == 5


def test_a_new_turn_after_undoing_can_be_undone_again():
    game = long_game(UNDO_LIMIT + 5)
    for _ in range(UNDO_LIMIT):
        game.undo()
    game.push(game.legal_moves()[0])
    assert game.undoable == 1
    game.undo()
    assert game.undoable == 0


def test_there_is_nothing_to_undo_at_the_start():
    with pytest.raises(UndoError, match="no move to undo"):
        Game().undo()


@pytest.mark.parametrize(
    "finish",
    [
        lambda: Game(Setup.named("double-jump"), ["9x18x27"]),
        lambda: Game(Setup(fen="W:W8,15:B4"), ["15-11"]),
        lambda: Game(Setup(fen="B:WK32:BK1"), ["1-6", "32-27", "6-1", "27-32"] * 2),
        lambda: _resigned(),
    ],
    ids=["no-pieces", "blocked", "repetition", "resignation"],
)
def test_a_finished_game_cannot_be_undone_and_stays_finished(finish):
    game = finish()
    before = snapshot(game)
    assert game.undoable == 0
    with pytest.raises(UndoError, match="a finished game cannot be undone"):
        game.undo()
    assert snapshot(game) == before


def _resigned():
    game = Game(moves=["11-15", "23-19"])
    game.resign()
    return game
