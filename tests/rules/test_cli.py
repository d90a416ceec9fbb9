"""The rules commands of ``kingme``: perft, moves and pdn. Bad input is one line on stderr and
exit status 2, never a traceback."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from kingme.cli import main

FIXTURE = Path(__file__).parent.parent / "game" / "fixtures" / "checkerboard.pdn"


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_perft_prints_one_line_per_depth_then_the_speed(capsys):
    status, out, err = run(capsys, "perft", "4")
    lines = out.splitlines()
    assert status == 0 and err == ""
    assert lines[:4] == ["depth 1: 7", "depth 2: 49", "depth 3: 302", "depth 4: 1469"]
    assert re.fullmatch(r"[\d,]+ positions/s \([\d,]+ positions in [\d.]+ s\)", lines[4])


def test_perft_takes_a_fen_and_a_variant(capsys):
    assert run(capsys, "perft", "2", "--fen", "W:W9,10,K31:B5,6,13,14,22,23")[1].startswith("depth 1: 2\ndepth 2: 15\n")
    assert "depth 1: 3\n" in run(capsys, "perft", "1", "--fen", "B:W14,23:B9", "--variant", "casual")[1]


def test_moves_lists_the_legal_moves_one_a_line(capsys):
    status, out, _ = run(capsys, "moves", "--fen", "B:W6,7,14,15:B2")
    assert status == 0
    assert out.splitlines() == ["2x9x18", "2x11x18"]


def test_moves_says_when_the_side_to_move_has_none(capsys):
    assert run(capsys, "moves", "--fen", "B:W5:B")[1] == "black has no legal move\n"


def test_pdn_reports_each_game_and_exits_0_when_all_are_fine(capsys):
    status, out, err = run(capsys, "pdn", str(FIXTURE))
    assert status == 0 and err == ""
    assert out.splitlines() == [
        "game 1: Anderson, A. - Wyllie, J., 50 moves, 1-0, OK",
        "game 2: Composer - Solver, 8 moves, 1-0, OK",
    ]


def test_pdn_reports_the_first_illegal_move_with_its_number_and_exits_2(capsys, tmp_path):
    file = tmp_path / "games.pdn"
    file.write_text(
        '[Black "A"]\n[White "B"]\n1. 11-15 23-19 2. 8-11 22-17 1/2-1/2\n\n'
        '[Black "C"]\n[White "D"]\n1. 11-15 23-19 2. 8-11 22-18 3. 15x22 25x18 4. 11-14 *\n'
    )
    status, out, err = run(capsys, "pdn", str(file))
    assert status == 2
    first, second = out.splitlines()
    assert first == "game 1: A - B, 4 moves, 1/2-1/2, OK"
    assert second.startswith("game 2: C - D, 7 moves, *, FAILED: PDN game 2, line 7: move 4. 11-14:")
    assert "not legal for black" in second
    assert err == f"kingme: error: 1 of 2 games in {file} failed\n"


def test_pdn_prints_player_names_without_control_characters(capsys, tmp_path):
    file = tmp_path / "names.pdn"
    file.write_text('[Black "\x1b[31mRed\x07"]\n[White "' + "W" * 200 + '"]\n1. 11-15 *\n')
    status, out, _ = run(capsys, "pdn", str(file))
    assert status == 0
    assert out.startswith("game 1: ?[31mRed? - WWW")
    assert len(out) < 150 and "\x1b" not in out


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["perft", "0"], "argument DEPTH: must be a whole number from 1 to 15"),
        (["perft", "99"], "argument DEPTH: must be a whole number from 1 to 15 (deeper counts take days"),
        (["perft", "x"], "argument DEPTH: must be a whole number"),
        (["perft", "2", "--fen", "B:W33:B1"], "square 33 is off the board"),
        (["perft", "2", "--variant", "italian"], "unknown variant 'italian'"),
        (["moves", "--fen", "garbage"], "must start with the side to move"),
        (["moves", "--fen", "B:W20:B29"], "black man on square 29"),
        (["pdn", "/nonexistent/file.pdn"], "/nonexistent/file.pdn: no such file or directory"),
        (["nonsense"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_status_2(capsys, argv, problem):
    try:
        status = main(argv)
    except SystemExit as exit:  # argparse stops on bad arguments
        status = exit.code
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.strip().splitlines()) == 1, err
    assert problem in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("", "holds no game"),
        ("\n\n   \n", "holds no game"),
        ("{never closed", "never closed"),
        ('[Event "x"\n1. 11-15 *', "never closed"),
        ("1. 11-15 23-19 2-0", "not a checkers result"),
        ("hello world", "is not a move"),
        (b"\x00\xff\xfe garbage \x81", "is not a move"),
    ],
)
def test_a_pdn_file_that_cannot_be_read_is_one_line_on_stderr(capsys, tmp_path, content, problem):
    file = tmp_path / "bad.pdn"
    if isinstance(content, bytes):
        file.write_bytes(content)
    else:
        file.write_text(content)
    status, out, err = run(capsys, "pdn", str(file))
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and problem in err


def test_a_pdn_file_over_10_mb_is_refused_without_reading_it_all(capsys, tmp_path):
    file = tmp_path / "huge.pdn"
    file.write_text("1. 11-15 23-19 * " * 700_000)
    status, _, err = run(capsys, "pdn", str(file))
    assert status == 2 and "larger than 10,000,000 bytes" in err


def test_a_directory_is_not_a_pdn_file(capsys, tmp_path):
    status, _, err = run(capsys, "pdn", str(tmp_path))
    assert status == 2 and "is a directory" in err


def test_the_installed_command_exits_2_without_a_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "kingme", "moves", "--fen", "B:W5,5:B1"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert result.stderr == "kingme: error: FEN 'B:W5,5:B1' puts two pieces on square 5\n"
    assert result.stdout == ""
