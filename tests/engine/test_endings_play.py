"""The strong levels play endings from the endgame tables: a won ending is won (never drawn by
the 80-ply rule or a repetition), a drawn one is never lost; the weaker levels still search."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from kingme.cli import main
from kingme.engine import analysis, egdb
from kingme.engine.analysis import endgame_tables
from kingme.engine.egdb import playout
from kingme.engine.player import think
from kingme.engine.search import DATABASE_WIN
from kingme.game import Game, Setup
from kingme.review.lines import proven_plies
from kingme.rules.fen import START_FEN


@pytest.fixture(scope="module")
def tables() -> egdb.Tables:
    loaded = endgame_tables()
    assert loaded is not None and loaded.max_pieces >= 4
    return loaded


def test_a_won_ending_is_won_by_the_strong_level_against_the_longest_defence(tables: egdb.Tables) -> None:
    rng = random.Random("won endings")
    for board in playout.sample(tables, rng, 4, "won", 6):
        played = playout.play_out(tables, board, "won", "strong", rng)
        assert played.winner == played.computer, played


def test_a_drawn_ending_is_never_lost_by_the_master_level(tables: egdb.Tables) -> None:
    rng = random.Random("drawn endings")
    for board in playout.sample(tables, rng, 4, "drawn", 4):
        played = playout.play_out(tables, board, "drawn", "master", rng)
        assert played.winner is None, played


def test_every_second_sampled_ending_can_crown_a_man_on_its_first_move(tables: egdb.Tables) -> None:
    boards = playout.sample(tables, random.Random("crowning"), 4, "won", 6)
    assert all(any(board.is_crowning(move) for move in board.legal_moves()) for board in boards[1::2])


def test_the_endings_benchmark_prints_what_master_won_and_kept_and_exits_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "endings", "--pieces", "4", "--positions", "2", "--seed", "7"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("master against the tables of at most ")
    assert lines[1].startswith("  won: 2 of 2 won (2 won);")
    assert lines[2].startswith("  drawn: 2 of 2 not lost (")


def test_the_endings_benchmark_counts_one_position_in_the_singular(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "endings", "--pieces", "4", "--positions", "1", "--seed", "7"]) == 0
    assert " from 1 won and 1 drawn 4-piece position (seed 7;" in capsys.readouterr().out


def test_the_endings_benchmark_names_each_ending_the_computer_did_not_keep_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lost = playout.Playout("W:WK3:B1,K30", "won", "black", "no-pieces", 1, 1, "white")
    monkeypatch.setattr(playout, "run", lambda *args: [playout.Summary("won", (lost,))])
    assert main(["bench", "endings", "--pieces", "4", "--positions", "1"]) == 1
    failed = "    FAILED won W:WK3:B1,K30, the computer white: black won by no-pieces in 1 ply"
    assert failed in capsys.readouterr().out.splitlines()


def test_the_endings_benchmark_refuses_a_size_the_tables_do_not_hold(
    monkeypatch: pytest.MonkeyPatch, tables: egdb.Tables, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(analysis, "endgame_tables", lambda: replace(tables, max_pieces=4))
    assert main(["bench", "endings", "--pieces", "5"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "hold at most 4 pieces" in error and "--pieces 5" in error


def test_the_tables_answer_at_the_root_without_a_search(tables: egdb.Tables) -> None:
    result = think(Game(Setup(fen="B:WK32:BK14,K19")), "master")
    assert result.nodes == 0 and result.score > 19_000


def test_an_opening_position_is_searched_and_the_weaker_levels_always_search() -> None:
    assert think(Game(Setup(fen=START_FEN)), "strong").nodes > 0
    assert think(Game(Setup(fen="B:WK32:BK14,K19")), "club").nodes > 0


@pytest.mark.parametrize(
    "fen",
    [
        "B:WK6,K31,K27:BK26,K20",  # Black to move, lost: its king on 26 falls
        "W:WK6,K31,K27:BK26,K16",  # White to move, the same capture to make
    ],
)
def test_a_table_score_below_the_root_counts_the_plies_to_the_tables_and_to_the_conversion(
    tables: egdb.Tables, fen: str
) -> None:
    """A position one piece above the tables is searched: its line reaches them after a few plies,
    and its score is the tables' win less those plies as well as the plies to conversion, so
    the winner hurries to the tables and the loser holds them off (the line played out says
    how far both are)."""
    game = Game(Setup(fen=fen))
    assert game.board.piece_count() == tables.max_pieces + 1
    result = think(game, "master")
    plies = proven_plies(game, result.pv, result.score, tables)
    assert plies is not None and (plies > 0) == (result.score > 0)
    assert abs(plies) == DATABASE_WIN - abs(result.score)
    entry = next(
        ply
        for ply in range(1, len(result.pv) + 1)
        if Game(game.setup, result.pv[:ply]).board.piece_count() <= tables.max_pieces
    )
    assert abs(plies) > entry
