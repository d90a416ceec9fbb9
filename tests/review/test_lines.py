"""The analysis board's lines: the best few distinct first moves of a position, each with its
line and value from Black's view, deepened one depth at a time, the same on every run."""

from __future__ import annotations

import pytest

from kingme.engine.analysis import analyse
from kingme.game import Game, Setup
from kingme.review.lines import MAX_LINES, PositionError, deepening, lines_at
from kingme.rules.errors import FenError
from kingme.rules.fen import START_FEN

#: Black to move after 1. 11-15 22-18: the capture 15x22 is the only move.
FORCED = "B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"
#: White to move, a king up in the middle game: every line is bad for Black.
WHITE_AHEAD = "W:W18,21,22,23,24,25,26,27,K28:B1,2,3,5,6,7,9,10"


def _playable(fen: str, moves: tuple[str, ...]) -> None:
    game = Game(Setup(fen=fen))
    for move in moves:
        game.push(move)


def test_three_lines_start_with_three_different_legal_moves_best_first() -> None:
    found = lines_at(START_FEN, 6)
    assert found.depth == 6 and found.nodes > 0 and not found.final
    assert len(found.lines) == MAX_LINES
    assert len({line.moves[0] for line in found.lines}) == MAX_LINES
    scores = [line.score for line in found.lines if line.score is not None]
    assert len(scores) == MAX_LINES
    assert scores == sorted(scores, reverse=True)  # Black to move: best for Black first
    for line in found.lines:
        _playable(START_FEN, line.moves)


def test_the_first_line_is_the_engines_own_search() -> None:
    [line] = lines_at(START_FEN, 8, count=1).lines
    plain = analyse(Game(), 8, 10_000_000, table_bits=20)
    assert line.moves == tuple(str(move) for move in plain.pv)
    assert line.score == plain.score


def test_the_same_position_gives_the_same_lines() -> None:
    assert lines_at(START_FEN, 9) == lines_at(START_FEN, 9)


def test_a_position_with_fewer_moves_than_lines_asked_gives_one_line_a_move() -> None:
    found = lines_at(FORCED, 5)
    assert [line.moves[0] for line in found.lines] == ["15x22"]


def test_values_are_from_blacks_view_whoever_moves() -> None:
    found = lines_at(WHITE_AHEAD, 6)
    assert all(line.score is not None and line.score < -100 for line in found.lines)
    scores = [line.score for line in found.lines if line.score is not None]
    assert scores == sorted(scores)  # White to move: best for White (lowest for Black) first


def test_a_position_in_the_endgame_tables_shows_wins_in_plies_and_is_final() -> None:
    black_wins = lines_at("B:WK30:BK1,K5", 1)
    assert black_wins.final and black_wins.nodes == 0
    assert all(line.score is None and line.win_plies is not None and line.win_plies > 0 for line in black_wins.lines)
    white_wins = lines_at("W:WK30,K26:BK1", 1)
    assert all(line.win_plies is not None and line.win_plies < 0 for line in white_wins.lines)
    drawn = lines_at("B:W32:B1", 1)
    assert all(line.score == 0 and line.win_plies is None for line in drawn.lines)
    for line in black_wins.lines:
        _playable("B:WK30:BK1,K5", line.moves)


def test_deepening_yields_each_depth_in_turn_up_to_the_maximum() -> None:
    depths = [found.depth for found in deepening(START_FEN, max_depth=5)]
    assert depths == [1, 2, 3, 4, 5]


def test_deepening_stops_before_a_depth_its_node_budget_cannot_complete() -> None:
    found = list(deepening(START_FEN, max_depth=30, nodes=5_000))
    assert found and all(not lines.exhausted for lines in found)
    deeper = lines_at(START_FEN, found[-1].depth + 1, nodes=5_000)
    assert deeper.exhausted and deeper.lines == ()


def test_deepening_stops_after_final_lines() -> None:
    assert [found.depth for found in deepening("B:WK30:BK1,K5", max_depth=10)] == [1]


@pytest.mark.parametrize("count", [0, 4, -1])
def test_a_count_outside_one_to_three_is_refused(count: int) -> None:
    with pytest.raises(ValueError, match="1 to 3 lines"):
        lines_at(START_FEN, 1, count=count)


def test_a_bad_fen_or_a_position_without_moves_is_refused_by_name() -> None:
    with pytest.raises(FenError, match="side to move"):
        lines_at("X:W1:B2", 1)
    with pytest.raises(PositionError, match="no move"):
        lines_at("B:W18,22:B", 1)
