"""Equal-time matches: the engine is given, for each move, the CPU time the pacer used on its last
searched move, or the pacer's reference time before it has searched in the game.

The clock is injected: no test measures or asserts a duration. A fake engine (a small program
speaking the protocol, playing the first legal move) writes down each ``go`` it is sent.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from kingme.engine.equal_time import (
    MAX_MOVETIME_MS,
    REFERENCE_POSITIONS,
    SEARCHED_MS,
    MoveTimes,
    cpu_seconds,
    measure_reference,
    reference_line,
    reference_positions,
)
from kingme.engine.match import Contestant, MatchRecord, run_match
from kingme.engine.protocol import EngineState, respond
from kingme.rules import KingmeError

#: Greets, writes every ``go`` line to the file it is given, and plays the first legal move.
FAKE_ENGINE = """
import sys
from kingme.game import Game, Setup
game = Game()
for line in sys.stdin:
    word, _, rest = line.strip().partition(" ")
    if word == "hello":
        print("id name fake", "hellook", sep="\\n", flush=True)
    elif word == "position":
        fen, _, moves = rest.removeprefix("fen ").partition(" moves ")
        game = Game(Setup("american", fen), moves.split())
    elif word == "go":
        with open(sys.argv[1], "a") as log:
            log.write(line)
        print(f"bestmove {game.legal_moves()[0]}", flush=True)
"""

#: The pacer's n-th move (the reference searches included: the first ``REFERENCE_POSITIONS``)
#: takes this long, in seconds: different every move, and not a whole number of milliseconds, so
#: rounding is seen.
PACER_SECONDS: Callable[[int], float] = lambda n: (100 + n + 0.4) / 1000  # noqa: E731
#: The reference time under ``PACER_SECONDS``: the median of 101 to 105 ms.
REFERENCE_MS = 103
#: The engine's every move takes this long, in seconds.
ENGINE_SECONDS = 0.05


class ScriptedClock:
    """CPU time that passes only during moves, as scripted: ``_timed_move`` reads the clock of
    the process before and after each move, so every second reading of a process ends a move."""

    def __init__(self, engine_seconds: float = ENGINE_SECONDS, pacer: Callable[[int], float] = PACER_SECONDS):
        self.engine_seconds = engine_seconds
        self.pacer = pacer
        self.readings: Counter[str] = Counter()
        self.seconds: defaultdict[str, float] = defaultdict(float)

    def __call__(self, pid: int | None) -> float:
        side = "pacer" if pid is None else "engine"  # the pacer is a level of this kingme
        self.readings[side] += 1
        if self.readings[side] % 2 == 0:
            move = self.readings[side] // 2
            self.seconds[side] += self.pacer(move) if side == "pacer" else self.engine_seconds
        return self.seconds[side]


def _fake_command(log: Path) -> str:
    """The command line of a fake engine writing its ``go`` lines to ``log`` (the program is
    written beside it: a command line with the program in it would not fit a record's header)."""
    program = log.with_suffix(".py")
    program.write_text(FAKE_ENGINE)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(program))} {shlex.quote(str(log))}"


def _fake_engine(log: Path) -> Contestant:
    return replace(Contestant.external(_fake_command(log)), equal_time=True)


def _times_in(record: Path) -> dict[str, MoveTimes]:
    """Each game's times in an equal-time match record, by seed, in the record's order."""
    lines = record.read_text().splitlines()[2:]  # after the header and the reference time
    return {line.split()[0]: MoveTimes.parse(line.split(" ", 2)[2]) for line in lines}


def _given_by_the_rule(seed: str, pacer: tuple[int, ...], reference: int) -> tuple[int, ...]:
    """What the engine is given on each of its moves in the game ``seed`` whose pacer used
    ``pacer``: the pacer's time on its last searched move, ``reference`` before it has searched.
    The pacer moves first after the ballot when it is White (``-b-black``), second otherwise."""
    first = 1 if seed.endswith("-b-black") else 0
    given, last = [], reference
    for move, spent in enumerate(pacer, start=1):
        if move == 1 and first == 0:
            given.append(last)
        last = spent if spent >= SEARCHED_MS else last
        given.append(last)
    return tuple(given)


def test_the_engine_is_sent_the_time_the_pacer_used_on_its_last_move(tmp_path: Path) -> None:
    log, record = tmp_path / "go.txt", tmp_path / "match.txt"
    result = run_match("random", _fake_engine(log), openings=1, workers=1, record=record, clock=ScriptedClock())
    assert record.read_text().startswith("# kingme match random vs engine:")
    assert record.read_text().splitlines()[0].endswith(", american, nodes a move of the level / equal time")
    assert record.read_text().splitlines()[1] == reference_line(REFERENCE_MS)
    assert result.reference == REFERENCE_MS
    games = _times_in(record)
    # Played in order: in ballot-001-a-black the pacer is Black, so the engine (White) moves first
    # after the three-move ballot and is given the pacer's reference time (its first five moves,
    # 101 to 105 ms, were the reference searches: 103), then each move the pacer's last; the
    # pacer's own moves are 106, 107...
    first = games["ballot-001-a-black"]
    assert first.given[0] == REFERENCE_MS and first.pacer[0] == 106
    assert first.given[1:] == first.pacer[: len(first.given) - 1]
    # In ballot-001-b-black the pacer (White) moves first: each engine move follows one of its.
    second = games["ballot-001-b-black"]
    assert second.given == second.pacer[: len(second.given)]
    assert set(first.engine + second.engine) == {50}
    sent = [int(line.removeprefix("go movetime ")) for line in log.read_text().splitlines()]
    assert sent == list(first.given + second.given)
    assert result.times == first + second
    assert result.times.summary("random", "engine:fake").startswith("CPU ms a move, mean / median: random used ")


def test_a_pacer_move_that_took_less_than_a_search_leaves_the_engine_the_last_searched_time(tmp_path: Path) -> None:
    # Every third of the pacer's moves in the games takes 0.4 ms, as a book, table or only move.
    def pacer(n: int) -> float:
        return 0.0004 if n > REFERENCE_POSITIONS and n % 3 == 0 else PACER_SECONDS(n)

    record = tmp_path / "match.txt"
    run_match("random", _fake_engine(tmp_path / "go.txt"), 1, 1, record=record, clock=ScriptedClock(pacer=pacer))
    for seed, times in _times_in(record).items():
        assert 0 in times.pacer
        assert times.given == _given_by_the_rule(seed, times.pacer, REFERENCE_MS)[: len(times.given)]
        assert min(times.given) > 100


def test_before_the_pacer_has_searched_in_a_game_the_engine_is_given_its_reference_time(tmp_path: Path) -> None:
    # The pacer searches the reference positions for 300 ms each, then answers every move of the
    # games in 0.4 ms, as from its book: the engine is given the reference time throughout.
    def pacer(n: int) -> float:
        return 0.3 if n <= REFERENCE_POSITIONS else 0.0004

    record, log = tmp_path / "match.txt", tmp_path / "go.txt"
    result = run_match("random", _fake_engine(log), 1, 1, record=record, clock=ScriptedClock(pacer=pacer))
    assert result.reference == 300
    assert record.read_text().splitlines()[1] == reference_line(300)
    assert {int(line.removeprefix("go movetime ")) for line in log.read_text().splitlines()} == {300}


def test_the_reference_positions_are_searched_with_the_pacers_book_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from kingme.engine import player
    from kingme.engine.book import stored_book

    positions = reference_positions()
    assert len(positions) == REFERENCE_POSITIONS
    assert all(len(game.legal_moves()) > 1 and game.board in stored_book() for game in positions)

    def no_book() -> None:
        raise AssertionError("the book was asked")

    monkeypatch.setattr(player, "stored_book", no_book)
    clock = ScriptedClock()
    assert measure_reference(Contestant("master", nodes=2_000), clock) == REFERENCE_MS
    assert clock.readings["pacer"] == 2 * REFERENCE_POSITIONS


def test_the_pacers_book_and_tables_are_read_before_its_first_timed_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each is read once a process on its first use, in about 40 ms: timed inside a book move or a
    # table move, the reading would count as a search and set the engine's time.
    from kingme.engine import player
    from kingme.engine.book import stored_book

    tables_read: list[bool] = []
    monkeypatch.setattr(player, "endgame_tables", lambda: tables_read.append(True))
    stored_book.cache_clear()
    player.warm_up("casual")  # plays neither
    assert stored_book.cache_info().currsize == len(tables_read) == 0
    player.warm_up("master")
    assert stored_book.cache_info().currsize == len(tables_read) == 1

    warmed: list[str | None] = []
    monkeypatch.setattr(player, "warm_up", warmed.append)
    run_match("random", _fake_engine(tmp_path / "go.txt"), openings=1, workers=1, clock=ScriptedClock())
    assert warmed[-1] == "random"


def test_a_frozen_copy_or_an_engine_as_pacer_is_timed_in_its_own_process(tmp_path: Path) -> None:
    # The running package is its own frozen copy here. The clock is asked only about the two
    # children, each by its own process id: the pacer's search runs in the frozen copy's.
    import kingme
    from kingme.engine.match import ExternalEngine, FrozenEngine

    here = str(Path(kingme.__file__).resolve().parent.parent)
    log = tmp_path / "go.txt"
    asked: list[int | None] = []

    def clock(pid: int | None) -> float:
        asked.append(pid)
        return len(asked) / 100  # ten milliseconds between readings

    run_match(Contestant("casual", 300, frozen=here), _fake_engine(log), openings=1, workers=1, clock=clock)
    engine = ExternalEngine.of(_fake_command(log)).pid
    assert set(asked) == {FrozenEngine.of(here).pid, engine}


def test_a_stopped_equal_time_match_goes_on_with_the_times_of_the_games_already_played(tmp_path: Path) -> None:
    record, log = tmp_path / "match.txt", tmp_path / "go.txt"
    run_match("random", _fake_engine(log), 2, 1, record=record, clock=ScriptedClock())
    before = _times_in(record)
    record.write_text("\n".join(record.read_text().splitlines()[:4]) + "\n")  # ballot 002 not played
    log.unlink()
    # Resumed on a pacer four times as slow: its reference time is read back, not measured again.
    slower = ScriptedClock(pacer=lambda n: 4 * PACER_SECONDS(n))
    resumed = run_match("random", _fake_engine(log), 2, 1, record=record, clock=slower)
    after = _times_in(record)
    assert list(after) == ["ballot-001-a-black", "ballot-001-b-black", "ballot-002-a-black", "ballot-002-b-black"]
    assert [after[seed] for seed in list(after)[:2]] == [before[seed] for seed in list(before)[:2]]
    assert len(log.read_text().splitlines()) == sum(len(after[seed].given) for seed in list(after)[2:])
    assert resumed.times == sum(after.values(), MoveTimes())
    assert resumed.reference == REFERENCE_MS and after["ballot-002-a-black"].given[0] == REFERENCE_MS
    assert record.read_text().count("# reference ") == 1


def test_the_summary_gives_each_sides_mean_and_median_milliseconds_a_move() -> None:
    times = MoveTimes(pacer=(100, 200, 600), given=(100, 200), engine=(90, 250))
    assert times.summary("master", "engine:cake") == (
        "CPU ms a move, mean / median: master used 300 / 200 over 3 moves; "
        "engine:cake was given 150 / 150 and used 170 / 170 over 2 moves"
    )


def test_an_engine_that_ignores_the_time_it_is_given_is_stopped_with_a_clear_error(tmp_path: Path) -> None:
    slow = ScriptedClock(engine_seconds=5.0)  # five seconds on moves given about a tenth
    with pytest.raises(KingmeError, match="does not keep to 'go movetime'"):
        run_match("random", _fake_engine(tmp_path / "go.txt"), openings=1, workers=1, clock=slow)


@pytest.mark.parametrize(
    ("pacer", "complaint"),
    [
        (lambda n: -0.2, "the CPU clock of random went back 200 ms during a move"),
        (lambda n: 2 * MAX_MOVETIME_MS / 1000, "random used 7,200,000 ms on one move, more than the 3,600,000"),
    ],
)
def test_a_clock_going_back_or_an_absurd_time_ends_the_match_with_a_clear_error(
    tmp_path: Path, pacer: Callable[[int], float], complaint: str
) -> None:
    record = tmp_path / "match.txt"
    with pytest.raises(KingmeError, match=complaint):
        run_match("random", _fake_engine(tmp_path / "go.txt"), 1, 1, record=record, clock=ScriptedClock(pacer=pacer))
    assert len(record.read_text().splitlines()) == 1  # the header only: no game recorded


def test_kingme_engine_refuses_a_time_budget_and_says_it_plays_by_nodes(tmp_path: Path) -> None:
    answer = respond(EngineState(), "go movetime 500")
    assert answer.lines == (
        "error kingme plays by nodes and depth, never by time, so that its moves are the same on every "
        "machine; 'go movetime' is for engines that play by time",
    )
    kingme_engine = replace(Contestant.external(f"{shlex.quote(sys.executable)} -m kingme engine"), equal_time=True)
    with pytest.raises(KingmeError, match="answered: error kingme plays by nodes and depth, never by time"):
        run_match("random", kingme_engine, openings=1, workers=1, clock=ScriptedClock())


def test_only_an_external_engine_can_be_given_time_and_only_as_the_second_contestant(tmp_path: Path) -> None:
    with pytest.raises(KingmeError, match="only an external engine can be given time: kingme's club plays by nodes"):
        run_match("random", Contestant("club", equal_time=True), openings=1, workers=1)
    with pytest.raises(KingmeError, match="the second contestant is given the time the first used"):
        run_match(_fake_engine(tmp_path / "go.txt"), "random", openings=1, workers=1)


def test_an_equal_time_record_without_times_or_with_bad_times_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    header = "# kingme match random vs engine:x, american, nodes a move of the level / equal time\n"
    header += reference_line(500) + "\n"
    bad = {
        "no times": "ballot-001-a-black draw\n",
        "a word too few": "ballot-001-a-black draw pacer=1,2 given=1\n",
        "not milliseconds": "ballot-001-a-black draw pacer=1,-2 given=1 engine=3\n",
        "uneven": "ballot-001-a-black draw pacer=1,2 given=1,2 engine=3\n",
        "too long": "ballot-001-a-black draw pacer=1 given=1 engine=3600001\n",
        "far too long": f"ballot-001-a-black draw pacer={'9' * 5000} given=1 engine=3\n",
    }
    for name, line in bad.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(header + line)
        with pytest.raises(KingmeError, match=r"not a game result|the times of 'ballot-001-a-black'"):
            MatchRecord(path, header.splitlines()[0].removeprefix("# kingme match "), timed=True)
        assert path.read_text() == header + line


def test_an_equal_time_record_with_a_bad_reference_time_or_games_without_one_is_refused(tmp_path: Path) -> None:
    header = "# kingme match random vs engine:x, american, nodes a move of the level / equal time"
    game = "ballot-001-a-black draw pacer=1,2 given=1,2 engine=3,4"
    bad = {
        "# reference 12x ms: the pacer's median": "the reference time must read '# reference MS ms: ...'",
        f"# reference {'9' * 5000} ms: the pacer's median": "the reference time must read",
        "# reference 3600001 ms: the pacer's median": "with MS from 0 to 3600000",
        "# reference 500 seconds": "the reference time must read",
        game: "holds equal-time games played without a reference time, by an earlier rule; name a new file",
    }
    for number, (line, complaint) in enumerate(bad.items()):
        path = tmp_path / f"{number}.txt"
        path.write_text(f"{header}\n{line}\n{game}\n")
        with pytest.raises(KingmeError, match=complaint):
            MatchRecord(path, header.removeprefix("# kingme match "), timed=True)
        assert path.read_text() == f"{header}\n{line}\n{game}\n"


def test_the_cpu_time_of_a_process_that_is_not_there_is_a_clear_error() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    with pytest.raises(KingmeError, match=f"cannot read the CPU time of process {gone.pid}"):
        cpu_seconds(gone.pid)


def test_kingme_match_equal_time_names_the_mode_and_prints_both_sides_times(tmp_path: Path) -> None:
    log, record = tmp_path / "go.txt", tmp_path / "match.txt"
    engine = _fake_command(log)
    argv = ["match", "random", "--engine", engine, "--equal-time", "--openings", "1", "--workers", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "kingme", *argv, "--record", str(record)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert f"engine:{engine} given the CPU time random used on its last searched move" in done.stdout
    assert "reference time of random: " in done.stdout
    assert "CPU ms a move, mean / median: random used " in done.stdout
    assert "reference time of random (given before it has searched in a game): " in done.stdout
    assert record.read_text().splitlines()[0].endswith("/ equal time")
    assert all(line.startswith("go movetime ") for line in log.read_text().splitlines())


def test_kingme_match_equal_time_wants_an_external_engine(capsys: pytest.CaptureFixture[str]) -> None:
    from kingme.cli import main

    assert main(["match", "club", "casual", "--equal-time"]) != 0
    assert (
        "--equal-time gives time to an external engine (--engine CMD); casual plays by nodes" in capsys.readouterr().err
    )
