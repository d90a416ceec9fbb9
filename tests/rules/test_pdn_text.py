"""PDN text: tags, numbered move text, comments, variations and results are read into games;
games are written back so that reading gives them again. Bad text names the game and line."""

import contextlib
import random
import re

import pytest

from kingme.rules import KingmeError, PdnError
from kingme.rules.pdn import MAX_PDN_CHARS, PdnGame, PdnVariation, read_pdn, write_pdn


def test_tags_moves_and_result_are_read():
    [game] = read_pdn('[Event "Club"]\n[Black "Ann"]\n[White "Bob"]\n[Result "0-1"]\n\n1. 11-15 23-19 2. 8-11 0-1\n')
    assert game.tags == {"Event": "Club", "Black": "Ann", "White": "Bob", "Result": "0-1"}
    assert game.moves == ["11-15", "23-19", "8-11"]
    assert game.result == "0-1"


@pytest.mark.parametrize("result", ["1-0", "0-1", "1/2-1/2", "*"])
def test_each_result_token_ends_a_game(result):
    assert read_pdn(f"1. 11-15 {result}")[0].result == result


def test_a_file_with_several_games_reads_as_several_games():
    text = '[Round "1"]\n1. 11-15 23-19 1-0\n\n[Round "2"]\n1. 9-14 *\n\n[Round "3"]\n1. 10-15 1/2-1/2\n'
    games = read_pdn(text)
    assert [g.tags["Round"] for g in games] == ["1", "2", "3"]
    assert [g.moves for g in games] == [["11-15", "23-19"], ["9-14"], ["10-15"]]
    assert [g.number for g in games] == [1, 2, 3]
    assert [g.line for g in games] == [1, 4, 7]


def test_games_without_a_result_are_cut_where_the_next_tags_begin():
    games = read_pdn('[Round "1"]\n1. 11-15\n[Round "2"]\n1. 9-14\n')
    assert [(g.tags["Round"], g.moves, g.result) for g in games] == [("1", ["11-15"], "*"), ("2", ["9-14"], "*")]


def test_a_missing_result_is_taken_from_the_result_tag():
    assert read_pdn('[Result "1-0"]\n1. 11-15\n')[0].result == "1-0"


def test_comments_are_kept_with_the_number_of_moves_before_them():
    [game] = read_pdn("{before} 1. 11-15 {the Old Faithful\nopening} 23-19 ; to the end of the line\n2. 8-11 *")
    assert game.moves == ["11-15", "23-19", "8-11"]
    assert game.comments == [(0, "before"), (1, "the Old Faithful opening"), (2, "to the end of the line")]


def test_variations_nags_and_move_marks_are_skipped():
    text = "1. 11-15! 23-19?! (1... 22-18 {a (bracket} (1... 24-20) 2. 15x22) $14 2. 8-11 !? 22-17 ?? *"
    assert read_pdn(text)[0].moves == ["11-15", "23-19", "8-11", "22-17"]


def test_move_numbers_may_be_glued_to_moves_or_written_with_an_ellipsis():
    text = '[FEN "W:W21-32:B1-12"]\n1...22-18 2.11-15 2... 18x11 3. 8x15 3. ... 24-20 *'
    assert read_pdn(text)[0].moves == ["22-18", "11-15", "18x11", "8x15", "24-20"]


def test_move_numbers_are_not_checked_because_programs_disagree():
    # pydraughts writes "1..." before Black's first move of a standard game.
    assert read_pdn("1... 11-15 2. 23-19 8-11 *")[0].moves == ["11-15", "23-19", "8-11"]


def test_capture_separators_and_leading_zeros_are_kept_for_the_board_to_read():
    assert read_pdn("1. 09-14 22-17 2. 14x21 25:18 *")[0].moves == ["09-14", "22-17", "14x21", "25:18"]


def test_each_move_knows_its_line_for_error_messages():
    [game] = read_pdn('[Event "x"]\n\n1. 11-15 23-19\n2. 8-11\n*')
    assert game.move_lines == [3, 3, 4]
    assert game.where(2) == "PDN game 1, line 4"


def test_tag_values_may_contain_escaped_quotes_and_brackets():
    [game] = read_pdn('[Event "The \\"Big\\" [one] \\\\ final"]\n*')
    assert game.tags["Event"] == 'The "Big" [one] \\ final'


def test_a_byte_order_mark_and_windows_line_ends_are_accepted():
    assert read_pdn('\ufeff[Event "x"]\r\n1. 11-15 *\r\n')[0].moves == ["11-15"]


def test_pdn_move_numbers_follow_the_side_to_move_of_the_fen():
    black_first, white_first = PdnGame(), PdnGame(tags={"FEN": "W:W21-32:B1-12"})
    assert [black_first.move_number(p) for p in range(3)] == ["1.", "1...", "2."]
    assert [white_first.move_number(p) for p in range(3)] == ["1...", "2.", "2..."]


def test_writing_gives_the_roster_tags_first_then_numbered_moves_and_the_result():
    tags = {"White": "Bob", "Black": "Ann", "Event": "Club"}
    game = PdnGame(tags=tags, moves=["11-15", "23-19", "8-11"], result="1-0")
    assert write_pdn(game) == (
        '[Event "Club"]\n[Black "Ann"]\n[White "Bob"]\n[Result "1-0"]\n\n1. 11-15 23-19 2. 8-11 1-0\n'
    )


def test_a_game_where_white_starts_is_written_with_an_ellipsis():
    game = PdnGame(tags={"FEN": "W:W21-32:B1-12"}, moves=["22-18", "11-15", "18x11"])
    assert write_pdn(game).endswith("\n1... 22-18 2. 11-15 18x11 *\n")


def test_variations_are_written_in_parentheses_after_the_move_they_replace_with_their_numbers():
    deeper = PdnVariation(["26x17"], [(1, "eval +0.40")])
    other = PdnVariation(["9-14", "22-18"], variations=[(1, PdnVariation(["21-17"], variations=[]))])
    game = PdnGame(
        moves=["11-15", "23-19", "8-11", "22-17"],
        comments=[(1, "eval +0.10, depth 12")],
        variations=[
            (0, other),
            (1, PdnVariation(["22-18"])),
            (3, PdnVariation(["26-22", "11-16"], variations=[(1, deeper)])),
        ],
    )
    assert " ".join(write_pdn(game).split()).endswith(
        "1. 11-15 {eval +0.10, depth 12} (1. 9-14 22-18 (1... 21-17)) 1... 23-19 (1... 22-18) "
        "2. 8-11 22-17 (2... 26-22 3. 11-16 (3. 26x17 {eval +0.40})) *"
    )


def test_a_game_written_with_variations_reads_back_as_its_main_line():
    game = PdnGame(tags={"Result": "*"}, moves=["11-15", "23-19"], variations=[(1, PdnVariation(["22-18", "15x22"]))])
    assert read_pdn(write_pdn(game)) == [PdnGame(tags={"Result": "*"}, moves=["11-15", "23-19"])]


def test_long_move_text_is_wrapped_and_still_reads_back():
    game = PdnGame(tags={"Result": "*"}, moves=["11-15", "23-19"] * 60)
    text = write_pdn(game)
    assert max(len(line) for line in text.splitlines()) <= 79
    assert read_pdn(text) == [game]


def test_written_games_read_back_unchanged():
    games = [
        PdnGame(
            tags={"Event": 'A "quoted" event', "Black": "Ann", "Result": "1-0", "Custom": "yes"},
            moves=["11-15", "23-19", "8-11"],
            result="1-0",
            comments=[(0, "start"), (1, "a comment with } inside"), (3, "end")],
        ),
        PdnGame(tags={"FEN": "W:W21-32:B1-12", "SetUp": "1", "Result": "*"}, moves=["22-18"], comments=[(1, "x")]),
        PdnGame(tags={"Result": "1/2-1/2"}, result="1/2-1/2"),
    ]
    again = read_pdn(write_pdn(games))
    games[0].comments[1] = (1, "a comment with ) inside")  # '}' cannot stand inside a PDN comment
    assert again == games


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "holds no game"),
        (" \n\t\n", "holds no game"),
        ("{only a comment}", "holds no game"),
        ("1. 11-15 {never closed", "game 1, line 1: the comment opened here is never closed"),
        ('[Event "x"]\n1. 11-15 *\n\n[Event "y"]\n1. 9-14 (2. 22-18\n *', "game 2, line 5: the variation"),
        ('[Event "never closed]\n1. 11-15 *', "the value of the tag Event is never closed"),
        ('[Event "x"\n1. 11-15 *', "the tag Event is never closed with ']'"),
        ("[Event]\n*", "a tag must look like"),
        ('[Ev-ent "x"]\n*', "is not a tag name"),
        ("1. 11-15 } *", "'}' closes nothing"),
        ("1. 11-15 ) *", "')' closes nothing"),
        ("1. 11-15 2-0", "'2-0' is not a checkers result"),
        ("1. 11-15 0-0", "'0-0' is not a checkers result"),
        ("1. 11-15 1/2", "'1/2' is not a move"),
        ("1. e2-e4 *", "'e2-e4' is not a move"),
        ("1. 11-15 23-19 DROP TABLE *", "'DROP' is not a move"),
        ('[Result "1-0"]\n1. 11-15 0-1', "the result 0-1 contradicts the Result tag '1-0'"),
    ],
)
def test_bad_pdn_is_refused_naming_the_game_line_and_problem(text, problem):
    with pytest.raises(PdnError, match=re.escape(problem)):
        read_pdn(text)


def test_huge_text_is_refused_before_it_is_read():
    with pytest.raises(PdnError, match="at most 10,000,000"):
        read_pdn("*" * (MAX_PDN_CHARS + 1))


@pytest.mark.parametrize("value", [None, b"1. 11-15 *", 42, ["1. 11-15 *"]])
def test_pdn_that_is_not_text_is_refused(value):
    with pytest.raises(PdnError, match="must be text"):
        read_pdn(value)


def test_random_bytes_never_raise_anything_but_a_pdn_error():
    rng = random.Random(5)
    alphabet = '[]{}()";.-x:*/!?$%\n 0123456789KWBabc'
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(60)))
        with contextlib.suppress(PdnError):
            read_pdn(text)


def test_writing_refuses_what_pdn_cannot_hold():
    with pytest.raises(PdnError, match="not a PDN result"):
        write_pdn(PdnGame(result="2-0"))
    with pytest.raises(KingmeError, match="not a tag name"):
        write_pdn(PdnGame(tags={"two words": "x"}))
