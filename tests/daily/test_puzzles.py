"""Puzzles: the model, the stored collection, the puzzle of the day, solving, and verification."""

from __future__ import annotations

import hashlib
import itertools
import json
from datetime import date, timedelta
from pathlib import Path

import pytest

from kingme.cli import main
from kingme.daily.puzzles import FIRST_DAY, Collection, Puzzle, PuzzleError, stored_collection, verifier
from kingme.daily.puzzles import analysis as puzzle_analysis
from kingme.daily.puzzles.analysis import DEEPER_DEPTHS, VERIFY_DEPTH, Scored
from kingme.daily.puzzles.endings import ending_puzzle, ending_puzzles
from kingme.daily.puzzles.solving import attempt, expected_move
from kingme.daily.puzzles.verifier import check_line, check_puzzle
from kingme.engine import analysis as engine_analysis
from kingme.engine import egdb
from kingme.rules import Board

from .conftest import small_collection

#: Two moves win here (13-17 and 3-7): a puzzle built on it has a second solution.
#: Three first moves (3-7, 3-8, 24-20) win the same man by the same moves in other orders, so
#: they score alike under any evaluation (two shots that merely both won once came apart when
#: the evaluation was refitted).
#: Either king's capture wins the game: a second solution whatever the evaluation or the depth
#: (a quiet position with two good moves was one only as long as the evaluation said so).
TWO_SOLUTIONS = Puzzle("two-solutions", "W:WK18,K26:B22,4", ("18x25",), "White to play and win")
#: A shallow depth keeps the rejection tests quick.
QUICK_DEPTH = 6


def test_the_stored_collection_has_a_puzzle_for_every_day_of_a_year() -> None:
    collection = stored_collection()
    assert len(collection) >= 365
    assert len({p.id for p in collection.puzzles}) == len(collection)
    assert len({p.fen for p in collection.puzzles}) == len(collection)


def test_the_classics_carry_their_source() -> None:
    classics = [p for p in stored_collection().puzzles if p.source]
    assert {"fools-trap", "seeing-is-believing", "first-position", "second-position"} <= {p.id for p in classics}


def test_the_puzzle_of_the_day_is_a_stable_function_of_the_date() -> None:
    collection = small_collection()
    day = date(2026, 11, 29)
    assert collection.of_the_day(day) == collection.of_the_day(date(2026, 11, 29))
    assert [collection.of_the_day(FIRST_DAY + timedelta(n)).id for n in range(4)] == [
        "double-jump",
        "opening-trade",
        "seeing-is-believing",
        "double-jump",
    ]


def test_without_a_calendar_appending_puzzles_keeps_every_day_of_the_first_cycle() -> None:
    collection = small_collection()
    longer = Collection((*collection.puzzles, Puzzle("extra", "B:W14,23:B10", ("10x17",), "Extra")))
    for n in range(len(collection)):
        day = FIRST_DAY + timedelta(n)
        assert longer.of_the_day(day) == collection.of_the_day(day)


def test_there_is_no_puzzle_before_the_first_day() -> None:
    with pytest.raises(PuzzleError, match="start on 2026-01-01"):
        small_collection().of_the_day(FIRST_DAY - timedelta(1))


def test_the_archive_lists_days_newest_first_and_stops_at_the_first_day() -> None:
    entries = small_collection().archive(FIRST_DAY + timedelta(1), days=30)
    assert [day for day, _ in entries] == [FIRST_DAY + timedelta(1), FIRST_DAY]


def test_a_puzzle_is_solved_with_the_defenders_replies_from_the_line() -> None:
    puzzle = small_collection().get("seeing-is-believing")
    ply = 0
    while True:
        result = attempt(puzzle, ply, str(expected_move(puzzle, ply)))
        assert result.correct
        if result.solved:
            break
        assert result.reply == puzzle.solution[ply + 1]
        ply = result.ply
    assert ply == len(puzzle.solution) - 1


@pytest.mark.parametrize("name", ["slower", "also_wins"])
def test_other_wins_survive_a_round_trip_and_a_list_of_none_is_no_list(name: str) -> None:
    data = {"id": "x", "fen": "B:W30:B9", "solution": ["9-13"], "title": "t", name: [["9-14"]]}
    puzzle = Puzzle.from_dict(data)
    assert getattr(puzzle, name) == (("9-14",),) and Puzzle.from_dict(puzzle.to_dict()) == puzzle
    assert getattr(Puzzle.from_dict({**data, name: [[]]}), name) == ()
    assert name not in Puzzle.from_dict({**data, name: [[]]}).to_dict()


def test_a_move_the_puzzle_lists_as_another_win_is_told_by_its_list_and_changes_nothing() -> None:
    puzzle = small_collection().get("opening-trade")
    assert attempt(puzzle, 0, "10-14").other_win == "slower"
    also = attempt(puzzle, 0, "9-13")
    assert also.other_win == "also_wins" and not also.correct and also.ply == 0 and also.reply is None
    assert attempt(puzzle, 0, "12-16").other_win is None


def test_a_wrong_move_is_told_and_can_be_retried() -> None:
    puzzle = small_collection().get("seeing-is-believing")
    wrong = attempt(puzzle, 0, "22-18")
    assert not wrong.correct and wrong.ply == 0 and wrong.reply is None
    assert attempt(puzzle, 0, "22-17").correct


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"id": "x", "fen": "B:W14,23:B9", "solution": ["9-13"], "title": "t"}, "not legal"),
        ({"id": "x", "fen": "B:W14,23:B9", "solution": ["9x27", "23-19"], "title": "t"}, "solver's move"),
        ({"id": "x", "fen": "B:W14,23:B9", "solution": [], "title": "t"}, "1 to"),
        ({"id": "X Y", "fen": "B:W14,23:B9", "solution": ["9x27"], "title": "t"}, "lowercase"),
        ({"id": "x", "fen": "B:W14,14:B9", "solution": ["9x27"], "title": "t"}, "14"),
        ({"id": "x", "fen": "B:W14,23:B9", "solution": "9x27", "title": "t"}, "list"),
        ({"id": "x", "fen": "B:W14,23:B9", "solution": [9], "title": "t"}, "text"),
        ({"id": "x", "fen": "B:W14,23:B9", "solution": ["9x27"]}, "lacks title"),
        ({"id": "x", "fen": "B:W14,23:B9", "solution": ["9x27"], "title": "t", "answer": 1}, "unknown"),
        ({"id": "x", "fen": "B:W14,23:B9", "solution": ["9x27"], "title": "t", "difficulty": "?"}, "difficulty"),
        ({"id": "x", "fen": "B:W22:B9", "solution": ["9-13"], "title": "t", "slower": ["9-14"]}, "lists of moves"),
        ({"id": "x", "fen": "B:W22:B9", "solution": ["9-13"], "title": "t", "also_wins": "9-14"}, "also_wins must"),
        ({"id": "x", "fen": "B:W22:B9", "solution": ["9-13"], "title": "t", "slower": [[], []]}, "each of its"),
        ({"id": "x", "fen": "B:W22:B9", "solution": ["9-13"], "title": "t", "also_wins": [[], []]}, "each of its"),
        ({"id": "x", "fen": "B:W22:B9", "solution": ["9-13"], "title": "t", "slower": [["9-5"]]}, "slower at solver"),
        ({"id": "x", "fen": "B:W22:B9", "solution": ["9-13"], "title": "t", "also_wins": [["9-5"]]}, "also_wins at"),
        ({"id": "x", "fen": "B:W22:B9", "solution": ["9-13"], "title": "t", "slower": [["9-13"]]}, "cannot also"),
        ({"id": "x", "fen": "B:W22:B9", "solution": ["9-13"], "title": "t", "also_wins": [["9-13"]]}, "cannot also"),
        ({"id": "x", "fen": "B:W22:B9", "solution": ["9-13"], "title": "t", "slower": [["9-14", "9-14"]]}, "twice"),
        ({"id": "x", "fen": "B:W22:B9", "solution": ["9-13"], "title": "t", "also_wins": [["9-14", "9-14"]]}, "twice"),
        ([], "must be an object"),
    ],
)
def test_a_stored_puzzle_that_cannot_be_used_is_refused_naming_the_problem(data: object, words: str) -> None:
    with pytest.raises(PuzzleError, match=words):
        Puzzle.from_dict(data)


def test_a_collection_file_with_a_repeated_id_or_bad_json_is_refused() -> None:
    one = {"id": "x", "fen": "B:W14,23:B9", "solution": ["9x27"], "title": "t"}
    with pytest.raises(PuzzleError, match="twice"):
        Collection.from_json(json.dumps({"puzzles": [one, one]}))
    with pytest.raises(PuzzleError, match="not valid JSON"):
        Collection.from_json("{")
    with pytest.raises(PuzzleError, match="empty"):
        Collection.from_json('{"puzzles": []}')
    with pytest.raises(PuzzleError, match="next_game must be a whole number"):
        Collection.from_json(json.dumps({"puzzles": [one], "next_game": -1}))
    with pytest.raises(PuzzleError, match="unknown field"):
        Collection.from_json(json.dumps({"puzzles": [one], "calendar": []}))


def test_the_verifier_rejects_a_puzzle_with_two_solutions() -> None:
    reason = check_puzzle(TWO_SOLUTIONS, QUICK_DEPTH)
    assert reason is not None and "second solution" in reason


def test_the_verifier_rejects_a_move_that_does_not_win() -> None:
    reason = check_line(Board().fen(), ["11-15"], QUICK_DEPTH)  # the start: nobody wins a man yet
    assert reason is not None and "solver's move 1 (11-15) does not win" in reason


FIRST_POSITION = "W:WK19,K23:B12,K28"


@pytest.fixture(scope="module")
def four_pieces(tmp_path_factory: pytest.TempPathFactory) -> egdb.Tables:
    directory = tmp_path_factory.mktemp("egdb")
    egdb.build(directory, 4)
    return egdb.load(directory, 4)


@pytest.fixture(params=["tables", "solver"])
def exact_judge(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Endings judged from the endgame tables of at most four pieces, or, without tables, by
    solving them (``kingme.engine.endgame``): First Position must come out the same by both."""
    tables = request.getfixturevalue("four_pieces") if request.param == "tables" else None
    monkeypatch.setattr(puzzle_analysis, "endgame_tables", lambda: tables)
    return str(request.param)


def test_a_small_ending_is_verified_exactly_and_the_book_line_of_first_position_holds(exact_judge: str) -> None:
    # No search sees this win (61 plies to the end, 17 to the first conversion); the exact judges do.
    assert check_line(FIRST_POSITION, ["23-27", "28-32", "19-23", "32-28", "27-32", "28-24", "23-18"]) is None


def test_in_an_exact_ending_a_slower_win_is_not_the_solution(exact_judge: str) -> None:
    reason = check_line(FIRST_POSITION, ["23-18"])
    distance = {"tables": ", converting in 17 plies", "solver": " in 61 plies"}[exact_judge]
    assert reason == f"second solution at solver's move 1: 23-27 wins{distance}"


def test_in_an_exact_ending_the_defence_must_hold_out_longest(exact_judge: str) -> None:
    reason = check_line(FIRST_POSITION, ["23-27", "12-16", "19-23"])
    assert reason == "defender's move 1 (12-16) is not the best defence: 28-32 holds out longer"


def test_an_exact_puzzle_lists_its_slower_wins_in_any_order_and_the_verifier_checks_them(exact_judge: str) -> None:
    line = ("23-27", "28-32", "19-23")
    right = Puzzle(
        "first", FIRST_POSITION, line, "First", slower=(("23-18", "23-26", "19-15"), ("27-31", "27-24", "27-23"))
    )
    assert check_puzzle(right) is None
    wrong = Puzzle("first", FIRST_POSITION, line, "First", slower=(("23-18",), ()))
    assert "are not those of the exact solution" in check_puzzle(wrong)


def test_a_puzzle_listing_slower_wins_is_judged_exactly_even_where_the_search_proves_its_line(
    exact_judge: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With the larger tables the search, probing them, proves a classic's line by itself; its
    # slower wins are still checked, as only the exact judgement lists them.
    monkeypatch.setattr(verifier, "_search_failure", lambda *_: None)
    line = ("23-27", "28-32", "19-23")
    assert check_puzzle(Puzzle("first", FIRST_POSITION, line, "First", slower=(("23-18",), ()))) is not None
    slower = (("23-18", "23-26", "19-15"), ("27-31", "27-24", "27-23"))
    assert check_puzzle(Puzzle("first", FIRST_POSITION, line, "First", slower=slower)) is None


def test_the_tables_judge_an_ending_without_solving_it(
    four_pieces: egdb.Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(puzzle_analysis, "endgame_tables", lambda: four_pieces)
    monkeypatch.setattr(puzzle_analysis, "solve", None)  # any call would fail
    assert check_line(FIRST_POSITION, ["23-27", "28-32", "19-23"]) is None


def test_the_tables_judge_only_the_endings_they_hold(four_pieces: egdb.Tables, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(puzzle_analysis, "endgame_tables", lambda: four_pieces)
    assert puzzle_analysis.database_tables(Board(FIRST_POSITION)) is four_pieces
    assert puzzle_analysis.database_tables(Board("W:W20,K15:B12,K28,K1")) is None  # five pieces: solved


def test_ending_puzzles_from_the_tables_have_one_winning_move_and_verify(
    four_pieces: egdb.Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(puzzle_analysis, "endgame_tables", lambda: four_pieces)
    puzzles = list(itertools.islice(ending_puzzles(four_pieces, 4, seed=1), 3))
    assert puzzles == list(itertools.islice(ending_puzzles(four_pieces, 4, seed=1), 3))  # seeded
    for puzzle in puzzles:
        board = Board(puzzle.fen)
        wins = [s for s in puzzle_analysis.table_scores(four_pieces, board, 0) if s.score > 0]
        assert [str(s.move) for s in wins] == [puzzle.solution[0]]
        assert puzzle.id.startswith("e-") and puzzle.title.endswith("to play and win")
        assert check_puzzle(puzzle) is None


@pytest.mark.parametrize(
    "fen",
    [
        FIRST_POSITION,  # four moves win (23-27 the quickest): no single winning move
        "W:WK14,K30:BK9,K10",  # a capture is compulsory (14x5 or 14x7)
        "W:WK18,K14,K1:BK28",  # three kings against one: a mop-up, not a study
    ],
)
def test_an_ending_with_more_than_one_win_a_forced_capture_or_lopsided_material_is_no_puzzle(
    four_pieces: egdb.Tables, fen: str
) -> None:
    assert ending_puzzle(four_pieces, Board(fen)) is None


def test_the_endings_command_writes_a_new_collection_of_ending_puzzles(
    four_pieces: egdb.Tables, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(engine_analysis, "endgame_tables", lambda: four_pieces)
    file = tmp_path / "endings.json"
    assert main(["puzzles", "endings", "--pieces", "4", "--count", "2", "--output", str(file)]) == 0
    puzzles = Collection.from_path(file).puzzles
    assert [p.id for p in puzzles] == [p.id for p in itertools.islice(ending_puzzles(four_pieces, 4, seed=1), 2)]
    assert capsys.readouterr().out.endswith(f"2 puzzles of 4 pieces in {file}\n")
    assert main(["puzzles", "endings", "--pieces", "4", "--output", str(file)]) == 2  # never overwritten
    assert main(["puzzles", "endings", "--pieces", "5", "--output", str(tmp_path / "five.json")]) == 2
    assert "hold at most 4 pieces" in capsys.readouterr().err and not (tmp_path / "five.json").exists()


def test_stored_puzzles_verify_smoke_subset() -> None:
    collection = stored_collection()
    assert check_puzzle(collection.get("seeing-is-believing")) is None
    # A generated puzzle with a wide margin (its move +2.4 men, the next best -2.4), so that a
    # retuned evaluation does not turn this smoke test into a test of the threshold.
    assert check_puzzle(collection.get("g-2f423bba8d")) is None


def test_the_verify_command_names_a_rejected_puzzle_and_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "puzzles.json"
    file.write_text(Collection((TWO_SOLUTIONS,)).to_json())
    assert main(["puzzles", "verify", "--file", str(file), "--depth", str(QUICK_DEPTH)]) == 1
    out = capsys.readouterr()
    assert "REJECTED two-solutions: second solution" in out.out
    assert "0 of 1 puzzle verified" in out.out
    assert "1/1 puzzles verified" in out.err  # the progress bar


def test_the_verify_command_refuses_a_broken_file_with_status_2(tmp_path: Path) -> None:
    file = tmp_path / "puzzles.json"
    file.write_text('{"puzzles": [{"id": "x"}]}')
    assert main(["puzzles", "verify", "--file", str(file)]) == 2


def test_generate_finds_a_puzzle_in_an_engine_game_that_then_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "puzzles.json"
    # Game 11 (seed puzzles-11) holds a puzzle, so the run stops there; later games are a margin
    # should the engine's levels play differently one day (each refit of the evaluation moves it:
    # it was game 19 before the fit to search scores, 13 before the refit on 16,000 games).
    command = ["puzzles", "generate", "--count", "1", "--games", "8", "--first-game", "11", "--no-classics"]
    assert main([*command, "--output", str(file)]) == 0
    (puzzle,) = Collection.from_path(file).puzzles
    assert puzzle.id.startswith("g-") and puzzle.title.endswith(("man", "men", "game"))
    assert "1 puzzle added (1 generated)" in capsys.readouterr().out
    assert main(["puzzles", "verify", "--file", str(file)]) == 0
    # The file remembers where to go on: a run without --first-game resumes after the find's game.
    resume = Collection.from_path(file).next_game
    assert 11 < resume <= 19
    assert main(["puzzles", "generate", "--count", "1", "--games", "1", "--no-classics", "--output", str(file)]) == 0
    assert f"engine games from puzzles-{resume} on" in capsys.readouterr().err
    assert Collection.from_path(file).next_game == resume + 1


#: The puzzles of the first release, in order. New puzzles are appended after them, never
#: inserted or reordered, so the days that have passed keep their puzzle (see docs/puzzles.md).
FIRST_RELEASE = 389
FIRST_RELEASE_SHA256 = "52a03e07848b1226b240db12245d02098eb0e5e671f50153dbcd19ae6a8ff8da"


def test_the_stored_collection_only_grows_at_its_end():
    ids = [puzzle.id for puzzle in stored_collection().puzzles]
    assert len(ids) >= FIRST_RELEASE
    assert hashlib.sha256("\n".join(ids[:FIRST_RELEASE]).encode()).hexdigest() == FIRST_RELEASE_SHA256


#: A position with three moves for the solver, to score by hand in the rule's tests below (the
#: exact judges, the tables and the solver, which would judge so small an ending, are set aside).
THREE_MOVES = "B:W32:B1,4"


@pytest.mark.parametrize(
    ("scores", "verdict"),
    [
        ((135, 36, 0), None),  # wins a man, the others level: sound
        ((135, 99, 99), None),  # another move close, but it does not win a man: sound
        ((350, 160, 0), None),  # another wins too, but a man and more below: no second solution
        ((250, 160, 0), "second solution"),  # wins a man and a half, within a man of the solution
        ((99, 0, 0), "does not win"),  # not a man ahead
        ((70, -30, -50), None),  # not a man ahead, but the only good move: every other a man below
        ((70, -29, -50), "does not win"),  # not a man ahead, and another move within a man
        ((49, -80, -90), "does not win"),  # the only good move, but not half a man ahead
    ],
)
def test_a_solver_move_must_win_a_man_and_no_other_winning_move_come_within_a_man(monkeypatch, scores, verdict) -> None:
    board = Board(THREE_MOVES)
    moves = board.legal_moves()
    assert len(moves) == 3

    def scored(position: Board, depth: int) -> list[Scored]:
        return sorted((Scored(m, s) for m, s in zip(moves, scores, strict=True)), key=lambda s: -s.score)

    monkeypatch.setattr(verifier, "score_moves", scored)
    monkeypatch.setattr(verifier, "exact_table", lambda board: None)
    monkeypatch.setattr(verifier, "database_tables", lambda board: None)
    reason = check_line(THREE_MOVES, [str(moves[0])])
    assert reason is None if verdict is None else verdict in reason


@pytest.mark.parametrize("sees_the_win", [DEEPER_DEPTHS[0], DEEPER_DEPTHS[-1]])
def test_a_line_rejected_at_the_verification_depth_is_judged_again_deeper(monkeypatch, sees_the_win: int) -> None:
    board = Board(THREE_MOVES)
    moves = board.legal_moves()
    searched: list[int] = []

    def scored(position: Board, depth: int) -> list[Scored]:
        searched.append(depth)
        key = 140 if depth >= sees_the_win else 90  # only a search this deep sees the win
        return [Scored(moves[0], key), Scored(moves[1], 0), Scored(moves[2], 0)]

    monkeypatch.setattr(verifier, "score_moves", scored)
    assert check_line(THREE_MOVES, [str(moves[0])]) is None
    assert searched == [VERIFY_DEPTH, *(d for d in DEEPER_DEPTHS if d <= sees_the_win)]
    assert sorted(DEEPER_DEPTHS) == list(DEEPER_DEPTHS) and DEEPER_DEPTHS[0] > VERIFY_DEPTH


def _scores(monkeypatch: pytest.MonkeyPatch, scores: tuple[int, int, int]) -> list[str]:
    """Make the search score ``THREE_MOVES``'s moves ``scores`` at every depth; their paths."""
    moves = Board(THREE_MOVES).legal_moves()

    def scored(position: Board, depth: int) -> list[Scored]:
        return sorted((Scored(m, s) for m, s in zip(moves, scores, strict=True)), key=lambda s: -s.score)

    monkeypatch.setattr(verifier, "score_moves", scored)
    monkeypatch.setattr(verifier, "exact_table", lambda board: None)
    monkeypatch.setattr(verifier, "database_tables", lambda board: None)
    return [str(move) for move in moves]


def test_a_second_solution_the_puzzle_lists_as_also_winning_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    key, other, third = _scores(monkeypatch, (250, 260, 120))
    assert "second solution" in str(check_puzzle(Puzzle("p", THREE_MOVES, (key,), "t")))
    assert check_puzzle(Puzzle("p", THREE_MOVES, (key,), "t", also_wins=((other, third),))) is None


def test_an_unlisted_second_solution_still_fails_beside_a_listed_one(monkeypatch: pytest.MonkeyPatch) -> None:
    key, other, third = _scores(monkeypatch, (250, 260, 200))
    reason = check_puzzle(Puzzle("p", THREE_MOVES, (key,), "t", also_wins=((other,),)))
    assert reason is not None and f"second solution at solver's move 1: {third} also wins" in reason


def test_a_second_solution_that_wins_more_is_named_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    key, other, _ = _scores(monkeypatch, (150, 400, 0))  # the other move wins far more than a man
    reason = check_puzzle(Puzzle("p", THREE_MOVES, (key,), "t"))
    assert reason == f"second solution at solver's move 1: {other} also wins (400), more than {key}'s 150"


def test_a_move_listed_as_also_winning_must_still_win(monkeypatch: pytest.MonkeyPatch) -> None:
    key, other, _ = _scores(monkeypatch, (250, 99, 0))
    reason = check_puzzle(Puzzle("p", THREE_MOVES, (key,), "t", also_wins=((other,),)))
    listed = f"{other}, listed as also winning at solver's move 1"
    assert reason == f"{listed}, does not win at depth {DEEPER_DEPTHS[-1]} (score 99)"
