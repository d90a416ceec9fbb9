"""The strong levels play endings from the endgame tables: a won ending is won (never drawn by
the 80-ply rule or a repetition), a drawn one is never lost; the weaker levels still search."""

from __future__ import annotations

import random

import pytest

from kingme.engine import choose_move, egdb
from kingme.engine.analysis import endgame_tables
from kingme.engine.egdb import moves as database_moves
from kingme.engine.player import think
from kingme.game import Game, Setup
from kingme.rules import Board
from kingme.rules.fen import START_FEN


def _random_ending(rng: random.Random, pieces: int) -> Board:
    """A position with ``pieces`` pieces (each side at least one), none of them a man on its
    crowning row, Black to move, no capture pending for the side to move."""
    while True:
        squares = rng.sample(range(1, 33), pieces)
        black = squares[: rng.randint(1, pieces - 1)]
        white = [s for s in squares if s not in black]

        def describe(side: list[int], crown: range) -> str:
            return ",".join(f"K{s}" if s in crown or rng.random() < 0.5 else str(s) for s in side)

        board = Board(f"B:W{describe(white, range(1, 5))}:B{describe(black, range(29, 33))}")
        if board.legal_moves() and not board.is_capture_required():
            return board


@pytest.fixture(scope="module")
def tables() -> egdb.Tables:
    loaded = endgame_tables()
    assert loaded is not None and loaded.max_pieces >= 4
    return loaded


def test_a_won_ending_is_won_by_the_strong_level_against_the_longest_defence(tables: egdb.Tables) -> None:
    rng = random.Random("won endings")
    won = 0
    while won < 6:
        board = _random_ending(rng, 4)
        if not egdb.is_win(database_moves.value(tables, board)):
            continue
        game = Game(Setup(fen=board.fen(), seed="ending"))
        while not game.is_over:
            if game.turn == "black":
                game.push(choose_move(game, "strong"))
            else:
                game.push(database_moves.best_move(tables, game.board))  # the longest defence
        assert game.result is not None and game.result.winner == "black", board.fen()
        won += 1


def test_a_drawn_ending_is_never_lost_by_the_master_level(tables: egdb.Tables) -> None:
    rng = random.Random("drawn endings")
    drawn = 0
    while drawn < 4:
        board = _random_ending(rng, 4)
        if database_moves.value(tables, board) != egdb.DRAW:
            continue
        game = Game(Setup(fen=board.fen(), seed="ending"))
        while not game.is_over:
            level = "master" if game.turn == "black" else "club"
            game.push(choose_move(game, level))
        assert game.result is not None and game.result.winner != "white", board.fen()
        drawn += 1


def test_the_tables_answer_at_the_root_without_a_search(tables: egdb.Tables) -> None:
    result = think(Game(Setup(fen="B:WK32:BK14,K19")), "master")
    assert result.nodes == 0 and result.score > 19_000


def test_an_opening_position_is_searched_and_the_weaker_levels_always_search() -> None:
    assert think(Game(Setup(fen=START_FEN)), "strong").nodes > 0
    assert think(Game(Setup(fen="B:WK32:BK14,K19")), "club").nodes > 0
