"""The ``kingme`` command as a new user meets it: the command list, the version, start-up without
the engine, a reader that stops reading, one message per option, and output paths checked first."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import kingme
from kingme.cli import COMMANDS, GROUPS, build_parser, main
from kingme.cli.startup import cheap_commands, engine_modules_imported, write_sample_pdn
from kingme.daily.puzzles import Collection, Puzzle
from kingme.daily.puzzles import generator as puzzle_generator


def status_of(argv: list[str]) -> int:
    """``main``'s exit status, also when argparse stops with SystemExit."""
    try:
        return main(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)


def test_kingme_alone_lists_every_command_and_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    assert status_of([]) == 0
    out = capsys.readouterr().out
    for command in COMMANDS:
        assert f"kingme {command.words} " in out and command.summary in out


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_a_group_alone_lists_its_commands_and_succeeds(group: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert status_of([group]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: kingme {group} ")
    for command in COMMANDS:
        if command.words.startswith(f"{group} "):
            assert command.words.split()[1] in out


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert status_of(["--version"]) == 0
    assert capsys.readouterr().out == f"kingme {kingme.__version__}\n"


@pytest.mark.parametrize("argv", cheap_commands(Path("FILE")), ids=" ".join)
def test_commands_without_the_engine_never_import_numba(argv: list[str], tmp_path: Path) -> None:
    if argv[0] == "pdn":
        argv = ["pdn", str(write_sample_pdn(tmp_path))]
    assert engine_modules_imported(argv) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["match", "--help"],
        ["match", "expert", "club"],
        ["bestmove", "--help"],
        ["bench", "engine", "--levels", "expert"],
        ["tune", "net", "--help"],
        ["book", "build", "--help"],
        ["bestmove", "--fen", "B:W33:B1"],
        ["endgame", "--fen", "B:W18"],
    ],
    ids=" ".join,
)
def test_engine_commands_answer_help_and_input_errors_without_loading_the_engine(argv: list[str]) -> None:
    """The compiled search (half a second of numba) is loaded when an engine command has work
    for it, not to print its options or refuse an option or a position."""
    assert engine_modules_imported(argv) == []


def test_the_import_probe_does_see_numba_when_a_command_uses_the_engine() -> None:
    assert "numba" in engine_modules_imported(["bestmove", "--level", "club"])


def test_a_reader_that_stops_reading_ends_the_command_quietly() -> None:
    """``kingme perft 12 | head -3``: no traceback and no "Broken pipe", the status a shell
    gives any filter stopped that way."""
    process = subprocess.Popen(
        [sys.executable, "-m", "kingme", "perft", "12"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout and process.stderr
    first = [process.stdout.readline() for _ in range(3)]
    process.stdout.close()
    assert process.wait(timeout=120) == 141
    assert first == ["depth 1: 7\n", "depth 2: 49\n", "depth 3: 302\n"]
    assert process.stderr.read() == ""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bench", "movegen", "--repeat", "0"], "argument --repeat: must be a whole number of at least 1, not '0'"),
        (["bench", "movegen", "--depth", "16"], "argument --depth: must be a whole number from 1 to 15 (deeper"),
        (["perft", "²"], "argument DEPTH: must be a whole number from 1 to 15"),
        (["perft", "9" * 5000], "argument DEPTH: must be a whole number from 1 to 15"),
        (
            ["match", "club", "casual", "--openings", "158"],
            "argument --openings: must be a whole number from 1 to 157 (there are 157 standard 3-move ballots)",
        ),
        (["match", "expert", "club"], "argument LEVEL_A: unknown level 'expert'"),
        (["bench", "engine", "--levels", "expert"], "argument --levels: unknown level 'expert'"),
        (["serve", "--port", "70000"], "argument --port: must be a whole number from 1 to 65535 (TCP has no other"),
        (["egdb", "build", "--pieces", "1"], "argument --pieces: must be a whole number from 2 to 6"),
        (["puzzles", "generate", "--count", "0"], "argument --count: must be a whole number of at least 1"),
        (["bench", "online", "--games", "5001"], "argument --games: must be a whole number from 1 to 5000 (so that"),
        (["bench", "online", "--seconds", "nan"], "argument --seconds: must be a number more than 0 and at most 600"),
        (["bench", "online", "--think", "61"], "argument --think: must be a number from 0 to 60 (a player who"),
        (["bench", "online", "--processes", "3"], "argument --processes: must be a whole number from 1 to 2 (one"),
        (["bench", "online", "--soak", "-1"], "argument --soak: must be a number more than 0 and at most 60"),
        (["bench", "online", "--url", "http://example.com"], "argument --url: the online benchmark runs on loopback"),
        (["tune", "net", "--td", "2"], "argument --td: must be a number from 0 to 1, not '2'"),
        (["tune", "net", "--epochs", "0"], "argument --epochs: must be a whole number of at least 1, not '0'"),
    ],
)
def test_each_option_is_checked_with_a_message_that_names_it(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert status_of(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_repeat_has_no_hidden_upper_bound() -> None:
    assert build_parser().parse_args(["bench", "movegen", "--repeat", "40"]).repeat == 40


def test_bench_engine_with_levels_runs_only_those_levels(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--levels", "random", "--positions", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    timed = [line.split()[0] for line in lines if line.startswith("  ")]
    assert timed == ["random"]
    assert not any(word in "\n".join(lines) for word in ("warming up", "perft", "search", "tactics"))


def test_generate_refuses_an_output_it_cannot_write_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    assert main(["puzzles", "generate", "--output", str(blocker / "puzzles.json")]) == 2
    err = capsys.readouterr().err
    output = blocker / "puzzles.json"
    assert err == f"kingme: error: {blocker} is a file, so {output} cannot be written under it\n"  # no progress bar


def test_generate_makes_the_folders_of_its_output_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = tmp_path / "new" / "folder" / "puzzles.json"
    folders_at_work: list[bool] = []

    def finding_nothing(*_: object, **__: object) -> Iterator[tuple[int, Puzzle]]:
        folders_at_work.append(output.parent.is_dir())
        yield from ()

    monkeypatch.setattr(puzzle_generator, "generate", finding_nothing)
    assert main(["puzzles", "generate", "--no-classics", "--output", str(output)]) == 1
    assert folders_at_work == [True] and not output.exists()  # nothing found, nothing written


def test_ctrl_c_stops_generate_in_one_line_keeping_every_find(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    found = Puzzle("p1", "B:W32:B1", ("1-6",), "Step")

    def stopped_after_one_find(*_: object, **__: object) -> Iterator[tuple[int, Puzzle]]:
        yield 7, found
        raise KeyboardInterrupt

    monkeypatch.setattr(puzzle_generator, "generate", stopped_after_one_find)
    output = tmp_path / "puzzles.json"
    assert main(["puzzles", "generate", "--no-classics", "--output", str(output)]) == 130
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"kingme: stopped: 1 puzzle found by this run saved in {output}; "
        "the same command without --first-game goes on from there"
    )
    saved = Collection.from_path(output)
    assert saved.puzzles == (found,) and saved.next_game == 8


def ctrl_c(argv: list[str], under_way: str) -> tuple[int, list[str]]:
    """Run ``kingme ARGV``, wait for the line of its output (either stream) that says it is
    ``under_way``, press Ctrl-C as a terminal does (SIGINT to every process of the command), and
    return the exit status and the lines printed after that, but for the command's own progress.
    The command starts with Ctrl-C's default action, as in a terminal: a test run started in the
    background of a shell (``bash .ci/run &``) ignores SIGINT, and its children would inherit that."""
    process = subprocess.Popen(
        [sys.executable, "-m", "kingme", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdout
    while under_way not in process.stdout.readline():
        pass
    os.killpg(process.pid, signal.SIGINT)
    status = process.wait(timeout=120)
    return status, [line for line in process.stdout.read().splitlines() if under_way not in line]


def test_ctrl_c_stops_verify_in_one_line() -> None:
    stopped = ctrl_c(["puzzles", "verify", "--limit", "100"], "puzzles verified")
    assert stopped == (130, ["kingme: stopped: verify writes nothing, so nothing is lost"])


def test_ctrl_c_stops_a_match_and_its_workers_in_one_line() -> None:
    argv = ["match", "club", "casual", "--workers", "2", "--nodes", "1000"]
    assert ctrl_c(argv, "game ") == (130, ["kingme: stopped"])  # and no worker's traceback


def test_generate_refuses_a_directory_as_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["puzzles", "generate", "--output", str(tmp_path)]) == 2
    assert (
        capsys.readouterr().err
        == f"kingme: error: {tmp_path} is a directory; --output names the collection file to write\n"
    )


def test_self_play_refuses_a_file_as_its_folder_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "games"
    games.write_text("")
    assert main(["tune", "selfplay", "--dir", str(games), "--games", "1"]) == 2
    assert capsys.readouterr().err == f"kingme: error: {games} is a file; --dir names the folder the games go to\n"


def test_training_refuses_an_output_it_cannot_write_before_reading_the_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kingme.engine import network_training

    (tmp_path / "games-0000.txt").write_text("")
    monkeypatch.setattr(network_training, "read_examples", lambda *_: pytest.fail("the games were read first"))
    assert main(["tune", "net", "--dir", str(tmp_path), "--output", str(tmp_path)]) == 2
    assert (
        capsys.readouterr().err
        == f"kingme: error: {tmp_path} is a directory; --output names the network file to write\n"
    )


def test_a_file_that_cannot_be_read_is_named_with_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.json"
    assert main(["puzzles", "calendar", "--file", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kingme: error: ") and str(missing) in err and "[Errno" not in err


def test_counts_of_one_are_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "one.pdn"
    game.write_text('[Black "A"]\n[White "B"]\n1. 11-15 *\n')
    assert main(["pdn", str(game)]) == 0
    assert capsys.readouterr().out == "game 1: A - B, 1 move, *, OK\n"
    assert main(["endgame", "--fen", "B:W18:B14"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "B:W18:B14: black wins in 1 ply"
    assert err.startswith("solving every position reachable from B:W18:B14 (2 pieces;")
    assert main(["match", "beginner", "random", "--openings", "1", "--workers", "1", "--nodes", "1"]) == 0
    assert "(american, 1 node a move)" in capsys.readouterr().out.splitlines()[0]
