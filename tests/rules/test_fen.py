"""PDN FEN in and out: positions round-trip, and impossible or malformed text is refused
with a message naming the problem."""

import contextlib
import random
import re

import pytest

from kingme import Board
from kingme.rules import START_FEN, FenError, KingmeError
from kingme.rules.fen import MAX_FEN_LENGTH, format_fen, parse_fen


@pytest.mark.parametrize(
    "fen",
    [
        START_FEN,
        "B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29",
        "W:W9,10,K31:B5,6,13,14,22,23",
        "B:W14,23:B9",
        "W:WK1,K2,K3,K4:BK29,K30,K31,K32",
        "B:W:B",
    ],
)
def test_a_written_fen_reads_back_as_the_same_position(fen):
    assert format_fen(parse_fen(fen)) == fen
    assert Board(fen).fen() == fen


def test_ranges_spaces_lowercase_and_quotes_are_accepted_on_input():
    assert Board("B:W21-32:B1-12").fen() == START_FEN
    assert Board(' "b : w21-32 : b1-12." ').fen() == START_FEN


def test_the_sections_may_come_in_either_order():
    assert Board("W:B1,K5:W30").fen() == "W:W30:B1,K5"


def test_a_fen_after_moves_round_trips_through_a_new_board():
    board = Board()
    for text in ["11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14"]:
        board.push_text(text)
        assert Board(board.fen()).fen() == board.fen()
        assert Board(board.fen()).legal_moves() == board.legal_moves()


@pytest.mark.parametrize(
    ("fen", "problem"),
    [
        ("", "must start with the side to move"),
        ("   ", "must start with the side to move"),
        ("hello world", "must start with the side to move"),
        ("X:W21-32:B1-12", "must start with the side to move"),
        ("B:W21-32", "three parts"),
        ("B", "three parts"),
        ("B:W21-32:B1-12:W5", "three parts"),
        ("B:W21-32:X1-12", "must start with W or B"),
        ("B:W21-32:W1-12", "white pieces twice"),
        ("B:W0:B1", "square 0 is off the board"),
        ("B:W33:B1", "square 33 is off the board"),
        ("B:W21-40:B1", "square 40 is off the board"),
        ("B:W5:B5", "two pieces on square 5"),
        ("B:W5,5:B1", "two pieces on square 5"),
        ("B:W1-5:B5", "two pieces on square 5"),
        ("B:W20:B29", "black man on square 29"),
        ("B:W4:B12", "white man on square 4"),
        ("B:W20-32:B1", "white 13 pieces"),
        ("B:W32:B1-13", "black 13 pieces"),
        ("B:W12-1:B20", "runs backwards"),
        ("B:Wa,b:B1", "'a' is not a square number"),
        ("B:WK:B1", "'' is not a square number"),
        ("B:W5-:B1", "'' is not a square number"),
        ("B:WKK5:B1", "is not a square number"),
        ("B:W²:B1", "'²' is not a square number"),
    ],
)
def test_malformed_or_impossible_fen_is_refused_naming_the_problem(fen, problem):
    with pytest.raises(FenError, match=re.escape(problem)):
        Board(fen)


def test_kings_may_stand_on_the_crowning_rows():
    assert Board("B:WK1:BK32").fen() == "B:WK1:BK32"


def test_huge_fen_is_refused_before_it_is_read():
    fen = "B:W" + ",".join(["21"] * 100_000) + ":B1"
    with pytest.raises(FenError, match=f"at most {MAX_FEN_LENGTH}"):
        Board(fen)


@pytest.mark.parametrize("value", [None, 5, b"B:W21-32:B1-12", ["B"], 3.5])
def test_fen_that_is_not_text_is_refused(value):
    with pytest.raises(FenError, match="must be text"):
        parse_fen(value)


def test_random_text_raises_nothing_but_fen_errors():
    rng = random.Random(3)
    alphabet = 'BWKbwk:,-. 0123456789²"x'
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(25)))
        with contextlib.suppress(FenError):
            parse_fen(text)


def test_every_fen_error_is_a_kingme_error_and_a_value_error():
    with pytest.raises(KingmeError):
        Board("B:W33:B1")
    with pytest.raises(ValueError):
        Board("B:W33:B1")
