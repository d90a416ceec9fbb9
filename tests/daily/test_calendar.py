"""The calendar of daily puzzles: past days never change, new weeks follow a rhythm, the operator's view."""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
from datetime import date, timedelta
from pathlib import Path

import pytest

from kingme.cli import main
from kingme.daily.puzzles import FIRST_DAY, Collection, Puzzle, PuzzleError, stored_collection
from kingme.daily.puzzles.calendar import Calendar
from kingme.daily.puzzles.collection import calendar_path, stored_path
from kingme.daily.puzzles.weekly import THEMES, rating, theme
from kingme.rules import Board

from .conftest import small_collection

#: Every day from 2026-01-01 to 2026-11-30 as ``YYYY-MM-DD PUZZLE_ID`` lines, hashed: the puzzles
#: those days showed under the first rule (day n, puzzle n of the collection of 393).
PAST_DAYS = 334
PAST_SHA256 = "b0bb1b20255aa0b6d7b314cf1285f1fc24ae7a451c8a3137b39465edaf0b36d1"
#: The day the calendar came in, already shown under the first rule.
INTRODUCED = date(2026, 12, 1)


def _day(n: int) -> date:
    return FIRST_DAY + timedelta(n)


def _puzzles(count: int) -> tuple[Puzzle, ...]:
    """``count`` different one-move puzzles (a lone man's step), ids ``p1``, ``p2``, ..."""
    fens = [f"B:W32:B{n}" for n in range(1, count + 1)]
    return tuple(Puzzle(f"p{n}", fen, (str(Board(fen).legal_moves()[0]),), "Step") for n, fen in enumerate(fens, 1))


def test_every_past_day_keeps_the_puzzle_it_had() -> None:
    lines = stored_collection().schedule.lines(FIRST_DAY, _day(PAST_DAYS - 1))
    assert hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest() == PAST_SHA256
    collection = stored_collection()
    assert collection.of_the_day(FIRST_DAY).id == "canalejas-cannonball"
    assert collection.of_the_day(date(2026, 4, 11)).id == "g-986660732f"
    assert collection.of_the_day(date(2026, 11, 30)).id == "g-44f164fc32"
    assert collection.of_the_day(INTRODUCED).id == "g-de4eec7aa9"
    # The first rule: day n showed the collection's puzzle n.
    assert [collection.of_the_day(_day(n)) for n in range(PAST_DAYS + 1)] == list(collection.puzzles[: PAST_DAYS + 1])


def test_the_stored_calendar_never_shows_a_puzzle_twice() -> None:
    ids = stored_collection().schedule.ids
    assert len(set(ids)) == len(ids)
    assert stored_collection().schedule.last_day > INTRODUCED


def test_the_calendar_command_lists_every_day_through_2028_without_a_repeat(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["puzzles", "calendar", "--from", "2026-01-01", "--to", "2028-12-31", "--today", "2026-12-01"]) == 0
    lines = capsys.readouterr().out.splitlines()
    ids = [line.split(" ", 1)[1] for line in lines]
    assert len(lines) == 1096 and lines[-1].startswith("2028-12-31 ")
    assert len(set(ids)) == len(ids)  # no puzzle twice, and so no day marked "(repeats ...)"


def test_new_weeks_go_from_the_easiest_on_monday_to_the_hardest_on_sunday_with_varied_themes() -> None:
    collection = stored_collection()
    day = INTRODUCED + timedelta(1)
    weeks: list[list[Puzzle]] = []
    while collection.schedule.covers(day):
        if not weeks or day.weekday() == 0:
            weeks.append([])
        weeks[-1].append(collection.of_the_day(day))
        day += timedelta(1)
    assert weeks
    for week in weeks:
        assert [rating(p) for p in week] == sorted(rating(p) for p in week)
        assert len({theme(p) for p in week}) >= 3


def test_growing_the_collection_and_extending_the_calendar_never_changes_a_day_it_covers() -> None:
    collection = stored_collection()
    extra = Puzzle("extra", "B:W14,23:B10", ("10x17",), "Extra")
    grown = Collection((*collection.puzzles, extra), collection.schedule.extended((), INTRODUCED))
    covered = range(len(collection.schedule))
    assert [grown.of_the_day(_day(n)) for n in covered] == [collection.of_the_day(_day(n)) for n in covered]


def test_a_calendar_is_extended_by_whole_weeks_of_unused_puzzles_only() -> None:
    puzzles = _puzzles(20)
    calendar = Calendar(("p1", "p2", "p3"))  # Thursday 2026-01-01 to Saturday
    extended = calendar.extended(puzzles, FIRST_DAY)
    assert extended.ids[:3] == calendar.ids
    assert len(extended) == 3 + 1 + 7 + 7  # of 17 unused: that week's Sunday, two whole weeks; 2 left
    assert len(set(extended.ids)) == len(extended)
    assert extended.last_day.weekday() == 6


def test_days_that_came_after_the_calendar_ran_out_keep_the_repeat_they_showed() -> None:
    calendar = Calendar(("p1", "p2", "p3"))
    today = _day(9)
    shown = [calendar.puzzle_id(_day(n)) for n in range(10)]
    extended = calendar.extended(_puzzles(20), today)
    assert list(extended.ids[:10]) == shown == ["p1", "p2", "p3"] * 3 + ["p1"]
    assert len(extended) > 10


def test_after_its_last_day_the_calendar_starts_over_from_its_first() -> None:
    calendar = Calendar(("a", "b", "c"))
    assert [calendar.puzzle_id(_day(n)) for n in range(3, 7)] == ["a", "b", "c", "a"]
    assert calendar.lines(_day(2), _day(3)) == ["2026-01-03 c", "2026-01-04 a  (repeats 2026-01-01)"]
    with pytest.raises(PuzzleError, match="start on 2026-01-01"):
        calendar.puzzle_id(FIRST_DAY - timedelta(1))


def test_a_puzzle_is_found_by_its_one_day_and_a_puzzle_no_day_has_by_none() -> None:
    calendar = Calendar(("a", "b", "c"))
    assert calendar.day_of("b") == _day(1)
    assert calendar.day_of("z") is None


def test_a_collection_without_a_calendar_shows_its_puzzles_in_order() -> None:
    collection = small_collection()
    assert collection.schedule.ids == ("double-jump", "opening-trade", "seeing-is-believing")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("2026-01-01 a\n2026-01-03 b\n", "line 2 is for 2026-01-03, expected 2026-01-02"),
        ("2026-01-02 a\n", "expected 2026-01-01"),
        ("2026-01-01 A B\n", "line 1 is not 'YYYY-MM-DD PUZZLE_ID'"),
        ("2026-01-01\n", "line 1"),
    ],
)
def test_a_calendar_file_that_cannot_be_used_is_refused_naming_the_line(text: str, words: str) -> None:
    with pytest.raises(PuzzleError, match=words):
        Calendar.from_text(text)


def test_a_calendar_naming_a_puzzle_the_collection_lacks_is_refused() -> None:
    with pytest.raises(PuzzleError, match="'nowhere', which is not in the collection"):
        Collection(small_collection().puzzles, Calendar(("double-jump", "nowhere")))


# ---- the operator's command ------------------------------------------------------------------


def _status(argv: list[str]) -> int:
    """The exit status of ``kingme ARGV``, whether the command or its argument parser stops it."""
    try:
        return main(argv)
    except SystemExit as stop:
        return int(stop.code or 0)


def test_the_calendar_command_prints_a_line_per_day(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["puzzles", "calendar", "--from", "2026-01-01", "--to", "2026-01-03", "--today", "2026-01-01"]) == 0
    out = capsys.readouterr()
    ids = [p.id for p in stored_collection().puzzles[:3]]
    assert out.out.splitlines() == [f"2026-01-0{n + 1} {ids[n]}" for n in range(3)]
    assert "warning" not in out.err


def test_printing_the_calendar_reads_only_the_calendar_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A week's preview starts at once however large the collection: the puzzles are read (and
    checked) only to extend the calendar."""
    file = tmp_path / "puzzles.json"
    file.write_text("not read")
    calendar_path(file).write_text(Calendar(("p1", "p2", "p3")).to_text())
    command = ["puzzles", "calendar", "--file", str(file), "--today", "2026-01-01"]
    assert main([*command, "--to", "2026-01-02"]) == 0
    assert capsys.readouterr().out == "2026-01-01 p1\n2026-01-02 p2\n"
    assert _status([*command, "--extend"]) == 2
    assert "the puzzle file is not valid JSON" in capsys.readouterr().err
    assert calendar_path(file).read_text() == Calendar(("p1", "p2", "p3")).to_text()


def test_the_calendar_command_warns_sixty_days_before_the_calendar_runs_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    last = stored_collection().schedule.last_day
    assert main(["puzzles", "calendar", "--today", (last - timedelta(59)).isoformat()]) == 0
    assert f"warning: the calendar runs out on {last} (in 59 days)" in capsys.readouterr().err
    assert main(["puzzles", "calendar", "--today", (last - timedelta(60)).isoformat()]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["--from", "2026-02-30"], "'2026-02-30' is not a day of the calendar"),
        (["--to", "tomorrow"], "a day must be written YYYY-MM-DD, not 'tomorrow'"),
        (["--from", "2026-03-02", "--to", "2026-03-01"], "the range starts (2026-03-02) after it ends (2026-03-01)"),
        (["--from", "2025-12-31"], "daily puzzles start on 2026-01-01"),
        (["--from", "2026-01-01", "--to", "2099-01-01"], "at most 3660 days"),
    ],
)
def test_the_calendar_command_refuses_bad_dates_in_one_line(
    arguments: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _status(["puzzles", "calendar", *arguments]) == 2
    out = capsys.readouterr()
    assert out.out == "" and words in out.err and len(out.err.strip().splitlines()) == 1


def test_the_calendar_command_extends_a_calendar_by_whole_weeks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "puzzles.json"
    file.write_text(Collection(_puzzles(20)).to_json())
    calendar_path(file).write_text(Calendar(("p1", "p2", "p3")).to_text())
    command = ["puzzles", "calendar", "--file", str(file), "--today", "2026-01-01", "--from", "2026-01-03"]
    assert main([*command, "--to", "2026-01-05", "--extend"]) == 0
    out = capsys.readouterr()
    assert "15 days added; the calendar covers 18 days, through 2026-01-18" in out.err
    assert out.out.startswith("2026-01-03 p3\n2026-01-04 ")
    assert Collection.from_path(file).schedule.ids[:3] == ("p1", "p2", "p3")
    assert "warning: the calendar runs out on 2026-01-18 (in 17 days)" in out.err


def test_verify_can_check_just_the_puzzles_no_day_has_yet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "puzzles.json"
    file.write_text(Collection(_puzzles(3)).to_json())
    calendar_path(file).write_text(Calendar(("p1", "p2")).to_text())
    assert main(["puzzles", "verify", "--file", str(file), "--unscheduled", "--depth", "2"]) == 1
    out = capsys.readouterr().out
    assert "REJECTED p3:" in out and "p1" not in out and "0 of 1 puzzle verified" in out


def test_a_fresh_collection_is_refused_where_a_calendar_gives_days_their_puzzles(tmp_path: Path) -> None:
    shutil.copy(stored_path(), tmp_path / "puzzles.json")
    shutil.copy(calendar_path(stored_path()), calendar_path(tmp_path / "puzzles.json"))
    before = (tmp_path / "puzzles.json").read_text()
    command = ["puzzles", "generate", "--fresh", "--no-classics", "--output", str(tmp_path / "puzzles.json")]
    assert main(command) == 2
    assert (tmp_path / "puzzles.json").read_text() == before


def _rated(*difficulties: str) -> tuple[Puzzle, ...]:
    """One-move puzzles ``p1``, ``p2``, ... of these difficulties, all of one theme (quiet-start
    endings), so their ratings order them as the difficulties do."""
    steps = _puzzles(len(difficulties))
    return tuple(dataclasses.replace(p, difficulty=level) for p, level in zip(steps, difficulties, strict=True))


def test_a_puzzle_withdrawn_before_its_day_leaves_its_day_to_an_unused_one_that_keeps_the_week_in_order() -> None:
    # Thursday 2026-01-01 to Sunday: easy, medium (withdrawn), medium, hard; p5 to p7 unused.
    puzzles = _rated("easy", "medium", "medium", "hard", "hard", "easy", "medium")
    collection = Collection(puzzles, Calendar(("p1", "p2", "p3", "p4")))
    kept = collection.withdrawn("p2", FIRST_DAY)
    assert kept.schedule.ids == ("p1", "p7", "p3", "p4")  # p7 rates as p2 did; p6 is easier, p5 harder than p3
    assert "p2" not in {p.id for p in kept.puzzles} and len(kept) == 6
    assert kept.of_the_day(FIRST_DAY) == collection.of_the_day(FIRST_DAY)


def test_the_calendars_first_day_has_no_day_before_it_in_its_week() -> None:
    # Thursday 2026-01-01 (withdrawn, seen from the day before) and Friday: only Friday bounds it.
    collection = Collection(_rated("easy", "hard", "easy"), Calendar(("p1", "p2")))
    assert collection.withdrawn("p1", FIRST_DAY - timedelta(1)).schedule.ids == ("p3", "p2")


def test_a_puzzle_no_day_has_is_simply_withdrawn() -> None:
    collection = Collection(_puzzles(3), Calendar(("p1", "p2")))
    kept = collection.withdrawn("p3", FIRST_DAY)
    assert kept.schedule == collection.schedule and [p.id for p in kept.puzzles] == ["p1", "p2"]


@pytest.mark.parametrize(
    ("puzzle_id", "today", "words"),
    [
        ("p1", FIRST_DAY, "p1 was the puzzle of 2026-01-01, a day that has come; it keeps it"),
        ("p2", _day(5), "p2 was the puzzle of 2026-01-02, a day that has come"),
        ("p3", FIRST_DAY, "no unused puzzle fits 2026-01-03's place in its week"),
        ("p9", FIRST_DAY, "there is no puzzle with id 'p9'"),
    ],
)
def test_withdrawing_is_refused_for_a_day_that_has_come_and_when_no_puzzle_can_stand_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], puzzle_id: str, today: date, words: str
) -> None:
    file = tmp_path / "puzzles.json"
    file.write_text(Collection(_rated("easy", "medium", "hard", "easy")).to_json())
    calendar_path(file).write_text(Calendar(("p1", "p2", "p3")).to_text())
    before = file.read_text(), calendar_path(file).read_text()
    assert main(["puzzles", "withdraw", puzzle_id, "--file", str(file), "--today", today.isoformat()]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
    assert (file.read_text(), calendar_path(file).read_text()) == before


def test_the_withdraw_command_rewrites_the_collection_and_its_calendar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "puzzles.json"
    file.write_text(Collection(_rated("easy", "medium", "hard", "medium")).to_json())
    calendar_path(file).write_text(Calendar(("p1", "p2", "p3")).to_text())
    assert main(["puzzles", "withdraw", "p2", "--file", str(file), "--today", "2026-01-01"]) == 0
    assert capsys.readouterr().out == "p2 withdrawn; 2026-01-02 now shows p4\n"
    stored = Collection.from_path(file)
    assert stored.schedule.ids == ("p1", "p4", "p3") and len(stored) == 3


def test_the_withdraw_command_wants_a_calendar_beside_the_collection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "puzzles.json"
    file.write_text(Collection(_puzzles(2)).to_json())
    assert main(["puzzles", "withdraw", "p2", "--file", str(file)]) == 2
    assert "has no calendar beside it" in capsys.readouterr().err


def test_every_theme_is_known() -> None:
    assert {theme(p) for p in stored_collection().puzzles} <= set(THEMES)
