"""Every command example and code block of README.md and of the documents in docs/ stays true.

Each ``kingme …`` example (in a ``sh`` block, a plain block or inline code) must name a command
of ``kingme`` and only options that command has. An example without placeholders must also be
accepted by the parser, and is run unless it is in ``NOT_RUN`` with the reason; the PDN block is
checked with ``kingme pdn``; the Python blocks are run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from kingme.cli import COMMANDS, GROUPS, command_parser, main

ROOT = Path(__file__).resolve().parents[2]
#: The README first, then the documents it points to that give commands, in the order a reader
#: meets them (the Python blocks run in this order, one after another).
DOCUMENTS = (
    "README.md",
    "docs/playing.md",
    "docs/operations.md",
    "docs/cli.md",
    "docs/pdn.md",
    "docs/engine.md",
    "docs/strength.md",
    "docs/egdb.md",
    "docs/puzzles.md",
    "docs/development.md",
)
TEXT = "\n".join((ROOT / name).read_text(encoding="utf-8") for name in DOCUMENTS)
BLOCKS = re.findall(r"```(\w*)\n(.*?)```", TEXT, re.S)

#: Concrete examples that are not run here, and why.
NOT_RUN = {
    "kingme serve": "serves until stopped",
    "kingme serve --host 0.0.0.0 --port 8080": "serves until stopped",
    "kingme serve --port 8001": "serves until stopped",
    "kingme serve --port 8002": "serves until stopped",
    "kingme engine": "answers on stdin until it closes (tests/engine/test_protocol.py)",
    "kingme perft 10": "tens of seconds in pure Python",
    "kingme perft 12 | head -3": "run by test_a_reader_that_stops_reading_ends_the_command_quietly",
    "kingme bench engine": "minutes of engine searches",
    "kingme bench review": "minutes of engine searches (tests/review/test_review_command.py)",
    "kingme bench egdb --pieces 5": "needs the 5-piece database built",
    "kingme bench egdb --pieces 6": "needs the 6-piece database built",
    "kingme bench endings": "needs the 5-piece database built (tests/engine/test_endings_play.py)",
    "kingme bench endings --pieces 6": "needs the 6-piece database built (tests/engine/test_endings_play.py)",
    "kingme egdb estimate --pieces 6": "needs the 5-piece database built; minutes (tests/engine/test_egdb.py)",
    "kingme bench online --soak 20": "10,000 WebSocket connects: minutes (tests/online/test_bench_smoke.py)",
    "kingme egdb build --pieces 5": "half a CPU minute, many minutes on a busy machine",
    "kingme egdb build --pieces 6": "15 minutes and 4 GB",
    'kingme egdb probe --fen "W:WK19,K23:B12,K28"': "needs a built database (tests/engine/test_egdb.py)",
    "kingme egdb verify": "needs a built database (tests/engine/test_egdb.py)",
    "kingme puzzles generate --count 370 --fresh": "45 minutes",
    "kingme puzzles generate --count 610 --no-classics": "1.5 hours, and it grows the package's collection",
    "kingme puzzles generate --count 310 --no-classics": "half an hour, and it grows the package's collection",
    "kingme puzzles verify": "3 CPU minutes with the ≤ 6 tables, half an hour without",
    "kingme puzzles verify --unscheduled": "minutes of searches",
    "kingme puzzles calendar --extend": "appends to the package's calendar",
    "kingme match beginner random": "314 games",
    "kingme match casual beginner": "314 games",
    "kingme match club casual": "314 games",
    "kingme match casual beginner --openings 40": "80 games",
    "kingme match club casual --openings 40": "80 games",
    "kingme match strong club --openings 20": "40 games",
    "kingme match strong club --openings 40": "80 games",
    "kingme match master strong --openings 16": "32 games of master",
    "kingme match master strong --openings 32 --workers 2": "64 games of master",
    "kingme match strong club --openings 20 --workers 1": "40 games",
    "kingme bench engine --levels strong": "a minute of engine searches",
    (
        "kingme match master master@/work/runs/c285 --openings 50 --workers 2"
        " --record docs/matches/master-4m-vs-c285c9d.txt"
    ): "100 games of master, hours",
    (
        "kingme match master master@/work/runs/c285 --openings 50 --workers 2"
        " --record docs/matches/master-4m-bands-vs-c285c9d.txt"
    ): "100 games of master, hours",
    # Commands named in a sentence: their synopses are checked, but as written they would work for
    # hours or stop for a missing option.
    "kingme match": "names the command; it needs LEVEL_A",
    "kingme endgame": "names the command; it needs --fen",
    "kingme egdb build": "names the command; it needs --pieces",
    "kingme puzzles generate": "hours of engine games into the package's collection",
    "kingme puzzles withdraw": "names the command; it needs the puzzle's ID (tests/daily/test_calendar.py)",
    "kingme puzzles endings": "names the command; it needs --pieces and --output (tests/daily/test_puzzles.py)",
    "kingme tune selfplay": "16,000 engine games",
    "kingme tune relabel": "needs the games of tune selfplay; minutes of searches",
    "kingme tune net": "needs the games of tune selfplay",
    "kingme book build": "hours of searches into the package's opening book",
    "kingme book build --nodes 4000000": "an hour of searches into the package's opening book",
    "kingme bench startup --runs 10": "starts a hundred processes: run by hand",
    "kingme bench startup": "starts dozens of processes: run by hand",
    "kingme bench movegen": "perft(9) three times in pure Python: minutes",
    "kingme bench egdb": "builds the 4-piece tables, then a million probes",
    "kingme bench online": "a minute of concurrent WebSocket games (tests/online/test_bench_smoke.py)",
    "kingme bench online --games 1000 --seconds 20": "2,000 WebSockets for 20 s (tests/online/test_bench_smoke.py)",
    "kingme bench online --processes 2 --games 1000 --seconds 15": "two servers on PostgreSQL and Redis, 2,000 "
    "WebSockets (tests/online/test_bench_smoke.py)",
    "kingme bench engine --positions 8 --levels master": "a minute of master's searches",
}
#: Shell lines of the README that are not kingme commands, and why they are not run here.
OTHER_LINES = {
    "pip install . && kingme serve": "installs the package, then serves",
    "bash scripts/test": "runs this very suite",
    "export KINGME_DATABASE_URL=postgresql://kingme@db.example/kingme": "configuration of another machine",
    "export KINGME_REDIS_URL=redis://cache.example:6379/0": "configuration of another machine",
    "kingme serve --port 8001 & kingme serve --port 8002": "serves until stopped",
}


def _has_placeholder(example: str) -> bool:
    """Whether an example is a synopsis (``--games N``, ``[--fen FEN]``, ``LEVEL@DIR``, ``…``)."""
    words = shlex.split(example.split(" | ")[0])
    return any(re.fullmatch(r"[A-Z][A-Z_]*(@DIR)?|\[.*|.*\]|…|\.\.\.|1\|2\]?", word) for word in words)


def _shell_lines() -> list[str]:
    lines = []
    for language, body in BLOCKS:
        for line in body.splitlines():
            line = re.sub(r"\s+#.*", "", line).strip()
            if line and (language == "sh" or line.startswith("kingme ")):
                lines.append(line)
    return lines


def _examples() -> list[str]:
    inline = [" ".join(span.split()) for span in re.findall(r"`(kingme [^`]*)`", TEXT)]
    found = []
    for line in _shell_lines():
        if line in OTHER_LINES:
            found += [part.strip() for part in re.split(r"&&|&(?!&)", line) if part.strip().startswith("kingme ")]
        else:
            found.append(line)
    return list(dict.fromkeys(found + [part.strip() for span in inline for part in span.split(" / ")]))


def _command_words(words: list[str]) -> str:
    """The command an example runs (``puzzles calendar``), or the group or '' it only names."""
    first = words[0] if words else ""
    if first in GROUPS and len(words) > 1:
        return f"{first} {words[1]}"
    return first


EXAMPLES = _examples()


def test_every_shell_line_is_a_kingme_example_or_is_named_with_its_reason() -> None:
    for line in _shell_lines():
        assert line.startswith("kingme ") or line in OTHER_LINES, line


@pytest.mark.parametrize("example", EXAMPLES)
def test_an_example_names_a_command_and_only_its_options(example: str) -> None:
    words = shlex.split(example.split(" | ")[0])[1:]
    command = _command_words(words)
    if _has_placeholder(command):  # kingme COMMAND --help, kingme bench …
        return
    known = {c.words for c in COMMANDS} | set(GROUPS) | {"--help", "--version", ""}
    assert command in known, f"{example}: no command {command!r}"
    if command in GROUPS or command.startswith("-") or not command:
        return
    options = {word.split("=")[0] for word in words if word.startswith("--")}
    parser = command_parser(command)
    accepted = {option for action in parser._actions for option in action.option_strings}
    assert options <= accepted, f"{example}: {sorted(options - accepted)} not options of kingme {command}"
    arguments = words[len(command.split()) :]
    if arguments and not _has_placeholder(example):
        parser.parse_args(arguments)  # the values are accepted too


RUNNABLE = [e for e in EXAMPLES if not _has_placeholder(e)]


@pytest.mark.parametrize("example", RUNNABLE)
def test_a_concrete_example_runs_or_is_named_with_the_reason_it_does_not(example: str, tmp_path: Path) -> None:
    """In a process of its own in an empty folder, so that an example run by mistake can neither
    write into the checkout nor outlive its bound."""
    if example in NOT_RUN:
        pytest.skip(NOT_RUN[example])
    env = {**os.environ, "KINGME_DATA_DIR": str(tmp_path), "KINGME_EGDB_DIR": str(tmp_path / "egdb")}
    result = subprocess.run(
        [sys.executable, "-m", "kingme", *shlex.split(example)[1:]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


def test_every_example_that_is_not_run_is_still_in_the_readme() -> None:
    assert set(NOT_RUN) <= set(EXAMPLES)
    assert set(OTHER_LINES) <= set(_shell_lines())


def test_the_pdn_example_is_a_legal_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    [pdn] = [body for language, body in BLOCKS if not language and body.startswith("[Event")]
    (tmp_path / "example.pdn").write_text(pdn, encoding="utf-8")
    assert main(["pdn", str(tmp_path / "example.pdn")]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.endswith(", OK\n")


def test_the_python_blocks_run_one_after_another() -> None:
    """In the documents' order, as a reader pastes them into one session."""
    namespace: dict[str, object] = {}
    for language, body in BLOCKS:
        if language == "python":
            exec(compile(body, "README.md and docs", "exec"), namespace)
