"""Matches: ballot openings, both colours, and an Elo difference with its margin."""

from __future__ import annotations

import math
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kingme.cli import INTERRUPTED_STATUS
from kingme.engine import match
from kingme.engine.ballots import ballot_openings
from kingme.engine.match import MatchResult, run_match
from kingme.rules import KingmeError


def test_the_three_move_ballots_are_the_standard_list_of_legal_openings() -> None:
    openings = ballot_openings()
    assert len(openings) == 157
    assert openings[0] == ("001", ["9-13", "21-17", "5-9"])


def test_a_smoke_match_plays_each_opening_with_both_colours() -> None:
    result = run_match("casual", "random", openings=2, workers=1)
    assert result.games == 4
    assert result.score >= 0.75


def test_elo_difference_is_zero_at_even_score_and_grows_with_the_score() -> None:
    even = MatchResult("a", "b", 5, 10, 5)
    assert even.elo()[0] == 0
    ahead = MatchResult("a", "b", 15, 10, 5)
    elo, margin = ahead.elo()
    assert 100 < elo < 200 and 0 < margin < math.inf
    assert MatchResult("a", "b", 4, 0, 0).elo() == (math.inf, math.inf)


def test_elo_is_described_with_its_margin_or_as_not_measurable_when_one_side_takes_every_point() -> None:
    assert MatchResult("a", "b", 10, 6, 0).describe_elo() == "+255 ± 155 (95%)"
    assert MatchResult("a", "b", 4, 0, 0).describe_elo() == "not measurable: one side took every point"


@pytest.mark.parametrize("black", ["club", "random"])  # random: a level without a search plan
def test_a_frozen_copy_of_kingme_plays_from_its_own_process_exactly_as_in_process(black: str) -> None:
    # The running package is its own frozen copy here: the same engine, so the same games.
    import kingme
    from kingme.engine.match import Contestant, GameTask, play_game

    here = str(Path(kingme.__file__).resolve().parent.parent)
    opening = tuple(ballot_openings()[5][1])
    in_process = GameTask(opening, Contestant(black, 2_000), Contestant("casual", 2_000), "frozen-test")
    frozen = GameTask(opening, Contestant(black, 2_000, here), Contestant("casual", 2_000, here), "frozen-test")
    assert play_game(frozen).moves == play_game(in_process).moves


def test_a_directory_without_kingme_cannot_be_a_frozen_copy(tmp_path) -> None:
    from kingme.engine.match import FrozenEngine
    from kingme.rules import KingmeError

    with pytest.raises(KingmeError, match="holds no kingme package"):
        FrozenEngine(str(tmp_path))


def test_a_recorded_match_stopped_halfway_goes_on_where_it_stopped_and_plays_no_game_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "match.txt"
    whole = run_match("casual", "random", openings=2, workers=1, record=record)
    lines = record.read_text().splitlines()
    assert lines[0].startswith("# kingme match casual vs random") and len(lines) == 5
    # A crash while the third game's line was being written: two games and a cut line remain.
    record.write_text("\n".join(lines[:3]) + "\n" + lines[3][:5])
    played: list[str] = []
    real = match.play_game
    monkeypatch.setattr(match, "play_game", lambda task: played.append(task.seed) or real(task))
    resumed = run_match("casual", "random", openings=2, workers=1, record=record)
    assert played == ["ballot-002-a-black", "ballot-002-b-black"]
    assert resumed == whole
    assert record.read_text().splitlines() == lines


def test_a_match_record_of_another_match_or_not_a_record_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    header = "# kingme match {} vs {}, american, nodes a move of the level / of the level\n"
    other = tmp_path / "other.txt"
    other.write_text(header.format("club", "casual"))
    garbled = tmp_path / "garbled.txt"
    garbled.write_text(header.format("casual", "random") + "nonsense\n")
    for path, message in ((other, "records another match"), (garbled, "not a game result")):
        before = path.read_text()
        with pytest.raises(KingmeError, match=message):
            run_match("casual", "random", openings=1, workers=1, record=path)
        assert path.read_text() == before
    with pytest.raises(KingmeError, match="cannot use it as the match record"):
        run_match("casual", "random", openings=1, workers=1, record=tmp_path)


def test_the_games_of_a_match_are_written_as_pdn_that_replays_to_the_same_results(tmp_path: Path) -> None:
    from kingme.game.pdn import game_from_pdn
    from kingme.rules.pdn import read_pdn

    path = tmp_path / "games.pdn"
    result = run_match("casual", "random", openings=2, workers=1, pdn=path)
    games = {game.tags["Seed"]: game for game in read_pdn(path.read_text())}
    assert sorted(games) == ["ballot-001-a-black", "ballot-001-b-black", "ballot-002-a-black", "ballot-002-b-black"]
    first = games["ballot-001-b-black"]
    assert (first.tags["Event"], first.tags["Round"], first.tags["Black"], first.tags["White"]) == (
        "kingme match casual vs random, american, nodes a move of the level / of the level",
        "001",
        "random",
        "casual",
    )
    assert first.moves[:3] == ballot_openings()[0][1]
    replayed = {seed: game_from_pdn(game) for seed, game in games.items()}
    assert all(game.is_over for game in replayed.values())
    winners = [games[seed].tags[game.result.winner.title()] for seed, game in replayed.items() if game.result.winner]
    assert winners.count("casual") == result.wins


@pytest.mark.parametrize(
    ("contestant", "named"),
    [
        (match.Contestant.external("kingme\nengine"), "the engine command 'kingme\\nengine' holds '\\n'"),
        (match.Contestant.external("kingme engine\r"), "holds '\\r'"),
        (match.Contestant.external("kingme\x1b[2Jengine"), "holds '\\x1b'"),
        (match.Contestant.external("kingme\u2028engine"), "holds '\\u2028'"),
        (match.Contestant("casual", frozen="/tmp/old\nkingme"), "the directory '/tmp/old\\nkingme' holds '\\n'"),
    ],
)
def test_a_contestant_that_cannot_be_named_on_one_line_is_refused_before_anything_is_written(
    tmp_path: Path, contestant: match.Contestant, named: str
) -> None:
    # The match record's header and the PDN's tags name each contestant on one line.
    record, pdn = tmp_path / "match.txt", tmp_path / "games.pdn"
    with pytest.raises(KingmeError, match="control character or line separator") as refused:
        run_match("random", contestant, openings=1, workers=1, record=record, pdn=pdn)
    assert named in str(refused.value)
    assert not record.exists() and not pdn.exists()


def test_a_pdn_file_that_cannot_be_written_is_refused_before_any_game_is_played(tmp_path: Path) -> None:
    with pytest.raises(KingmeError, match="cannot write the games there"):
        run_match("casual", "random", openings=1, workers=1, pdn=tmp_path)


#: An engine that greets, writes its process id to the file it is given, and never answers ``go``.
HANGING_ENGINE = """
import os, sys, time
for line in sys.stdin:
    if line.startswith("hello"):
        with open(sys.argv[1], "a") as file:
            file.write(f"{os.getpid()}\\n")
        print("hellook", flush=True)
    elif line.startswith("go"):
        time.sleep(3600)
"""


def _engine_command(program: str, tmp_path: Path, pids: Path) -> str:
    """The command running ``program`` with ``pids`` as its argument; the program is written to
    a file, since a contestant's command must fit on one line."""
    path = tmp_path / "engine.py"
    path.write_text(program)
    return " ".join(shlex.quote(str(part)) for part in (sys.executable, path, pids))


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


class _Sleeper(match.ChildEngine):
    """A child that does nothing until it is killed."""

    @staticmethod
    def _command(key: str) -> tuple[list[str], str]:
        return [sys.executable, "-c", "import time; time.sleep(600)"], f"the sleeper {key}"


def test_a_worker_ends_its_engines_even_when_stopped_inside_a_popen_method_holding_its_lock() -> None:
    # The pool's SIGTERM can interrupt a worker whose exit is killing its engine through
    # Popen.kill, which holds the Popen's lock; the handler must not wait for that lock.
    sleeper = _Sleeper.of("stopped-while-killing")
    pid = sleeper._process.pid
    with sleeper._process._waitpid_lock:  # as Popen.kill -> poll holds it
        stopping = threading.Thread(target=match.ChildEngine.stop_all, daemon=True)
        stopping.start()
        stopping.join(timeout=60)  # a bound only, so that a regression fails instead of hanging
        assert not stopping.is_alive(), "stop_all waited for the lock its own process held"
    assert not _running(pid)
    assert sleeper._process.returncode == -signal.SIGKILL  # reaped and recorded: never signalled again


def test_a_match_stopped_by_sigterm_ends_the_engines_its_workers_started(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    engine = _engine_command(HANGING_ENGINE, tmp_path, pids)
    argv = [sys.executable, "-m", "kingme", "match", "random", "--engine", engine, "--openings", "1", "--workers", "2"]
    # Not a pipe: engines left running would hold it open, and reading it would wait for them.
    errors = tmp_path / "stderr"
    with errors.open("w") as stderr:
        command = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr)
    started = time.monotonic()
    try:
        # Each worker starts its own engine, which then searches for ever: wait until both have
        # (the bound only keeps a broken match from hanging the suite).
        while not pids.exists() or len(pids.read_text().split()) < 2:
            assert command.poll() is None, errors.read_text()
            assert time.monotonic() - started < 300, "the workers never started their engines"
            time.sleep(0.1)
        command.send_signal(signal.SIGTERM)
        assert command.wait(timeout=120) == INTERRUPTED_STATUS
        assert "kingme: stopped" in errors.read_text()
    finally:
        command.kill()
        left = [pid for pid in map(int, pids.read_text().split()) if _running(pid)] if pids.exists() else []
        for pid in left:  # not left behind by a failing run either
            os.kill(pid, signal.SIGKILL)
    assert not left


#: kingme's own engine, started by way of a program that first writes its process id (which
#: ``exec`` keeps) to the file it is given.
COUNTED_ENGINE = """
import os, sys
with open(sys.argv[1], "a") as file:
    file.write(f"{os.getpid()}\\n")
os.execv(sys.executable, [sys.executable, "-m", "kingme", "engine"])
"""


def test_a_finished_match_lets_its_workers_go_and_leaves_no_engine_running(tmp_path: Path) -> None:
    # The workers end on their own once every game is played (no signal: a worker killed while
    # holding the task queue's lock once left the match waiting for ever), ending their engines.
    pids = tmp_path / "pids"
    engine = _engine_command(COUNTED_ENGINE, tmp_path, pids)
    result = run_match("casual", match.Contestant.external(engine, nodes=2_000), openings=1, workers=2)
    assert result.wins + result.draws + result.losses == 2
    started = time.monotonic()
    while left := [pid for pid in map(int, pids.read_text().split()) if _running(pid)]:
        # the bound only keeps a regression from hanging the suite
        assert time.monotonic() - started < 120, f"engines {left} still running after the match"
        time.sleep(0.1)
