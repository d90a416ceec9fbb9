"""The kingme engine protocol: every command, its replies, its errors, and play through it."""

from __future__ import annotations

import io
import shlex
import subprocess
import sys

import pytest

from kingme.engine import levels
from kingme.engine.ballots import ballot_openings
from kingme.engine.match import Contestant, ExternalEngine, run_match
from kingme.engine.player import choose_move, think
from kingme.engine.protocol import MAX_LINE, PROTOCOL_VERSION, EngineState, respond, serve
from kingme.game import Game, Setup
from kingme.rules import KingmeError

ENGINE_COMMAND = f"{shlex.quote(sys.executable)} -m kingme engine"
#: Children compile or load the numba core on first use, slowly on a loaded machine.
CHILD_TIMEOUT = 600


def run(*lines: str, state: EngineState | None = None) -> tuple[EngineState, list[str]]:
    """Feed ``lines`` to the protocol from ``state``: the state after them and every reply."""
    state = state or EngineState()
    replies: list[str] = []
    for line in lines:
        answer = respond(state, line)
        state = answer.state
        replies.extend(answer.lines)
    return state, replies


def test_hello_names_the_engine_the_protocol_version_the_variants_and_the_levels() -> None:
    _, replies = run("hello")
    assert replies[0].startswith("id name kingme ")
    assert f"id protocol {PROTOCOL_VERSION}" in replies
    assert "id variants american casual" in replies
    assert "id levels random beginner casual club strong master" in replies
    assert replies[-1] == "hellook"


def test_isready_answers_readyok_and_a_blank_line_answers_nothing() -> None:
    assert run("isready", "", "   \t")[1] == ["readyok"]


def test_position_sets_the_start_and_the_moves_played_from_it() -> None:
    state, replies = run("position startpos moves 11-15 23-19 8-11")
    assert replies == []
    assert [str(move) for move in state.game.moves] == ["11-15", "23-19", "8-11"]
    state, _ = run("position fen B:W14,23:B9", state=state)
    assert state.game.board.fen() == "B:W14,23:B9" and not state.game.moves


def test_show_reports_variant_seed_position_legal_moves_and_status() -> None:
    _, replies = run("seed my seed", "position fen B:W14,23:B9", "show")
    assert replies == [
        "variant american",
        "seed my seed",
        "position fen B:W14,23:B9",
        "fen B:W14,23:B9",
        "legal 9x18x27",
        "status playing",
    ]


def test_the_moves_count_for_repetition_so_a_third_repetition_ends_the_game() -> None:
    shuffle = "1-6 32-27 6-1 27-32"
    state, replies = run(f"position fen B:WK32:BK1 moves {shuffle} {shuffle}", "show", "go")
    assert state.game.result is not None and state.game.result.reason == "repetition"
    assert replies[-2] == "status over draw repetition"
    assert replies[-1].startswith("error the game is over (repetition)")


def test_newgame_and_variant_go_back_to_the_start_keeping_the_seed() -> None:
    state, _ = run("seed s-1", "position startpos moves 11-15", "newgame")
    assert state.game.moves == [] and state.setup.seed == "s-1" and state.setup.variant == "american"
    state, _ = run("variant casual", state=state)
    assert state.setup.variant == "casual" and state.setup.seed == "s-1"


def test_seed_changes_the_seed_and_keeps_the_position() -> None:
    state, _ = run("position startpos moves 11-15", "seed another seed")
    assert state.setup.seed == "another seed" and [str(m) for m in state.game.moves] == ["11-15"]


def test_go_answers_info_then_the_move_the_computer_plays_with_its_full_route() -> None:
    state, replies = run("seed go-test", "position startpos moves 11-15 23-19", "go level strong nodes 3000")
    expected = think(state.game, "strong", 3000)
    assert replies == [
        f"info depth {expected.depth} score {expected.score} nodes {expected.nodes} "
        f"pv {' '.join(str(move) for move in expected.pv)}",
        f"bestmove {choose_move(state.game, 'strong', 3000)}",
    ]
    assert replies[0].split(" pv ")[1].split()[0] == replies[1].removeprefix("bestmove ")


def test_go_plays_master_by_default_and_a_forced_multi_jump_without_searching() -> None:
    assert run("position fen B:W14,23:B9", "go")[1] == ["bestmove 9x18x27"]


def test_go_depth_limits_the_search_and_leaves_the_level_as_it_was() -> None:
    plan = levels.PLANS["master"]
    _, replies = run("go depth 2 nodes 100000")
    assert replies[0].startswith("info depth 2 ")
    assert levels.PLANS["master"] == plan


def test_go_at_the_random_level_plays_a_legal_move() -> None:
    state, replies = run("go level random")
    assert replies[0].removeprefix("bestmove ") in {str(move) for move in state.game.legal_moves()}


def test_quit_stops_the_engine() -> None:
    assert respond(EngineState(), "quit").quit


HOSTILE_LINES = [
    "garbage",
    "GO",
    "\x00\ufffd\ufffd",
    "hello there",
    "isready now",
    "quit now",
    "go nodes",
    "go nodes -5",
    "go nodes 0",
    "go nodes 1e9",
    "go nodes ５",
    "go nodes 99999999999999999999999999999999",
    "go nodes " + "9" * 5000,
    "go depth 61",
    "go level grandmaster",
    "go nodes 10 nodes 10",
    "go speed 3",
    "position",
    "position fen",
    "position startfen",
    "position fen B:W99:B1",
    "position fen garbage moves 11-15",
    "position startpos moves 11-15 11-15",
    "position startpos moves 9x27",
    "position startpos 11-15",
    "position startpos moves " + "11-15 " * 20_000,
    "seed",
    "seed " + "x" * 200,
    "variant",
    "variant chess",
    "x" * (MAX_LINE + 1),
]


@pytest.mark.parametrize("line", HOSTILE_LINES, ids=lambda line: repr(line[:30]))
def test_a_bad_line_answers_one_error_and_changes_nothing(line: str) -> None:
    state, _ = run("seed kept", "position startpos moves 11-15")
    answer = respond(state, line)
    assert len(answer.lines) == 1 and answer.lines[0].startswith("error ")
    assert len(answer.lines[0]) < 300 and "\n" not in answer.lines[0]
    assert answer.state is state and not answer.quit


def test_serve_answers_each_line_until_quit() -> None:
    output = io.StringIO()
    serve(["isready\n", "nonsense\n", "isready\n", "quit\n", "isready\n"], output)
    lines = output.getvalue().splitlines()
    assert lines[0] == "readyok" and lines[1].startswith("error unknown command") and lines[2:] == ["readyok"]


def test_kingme_engine_survives_hostile_input_and_still_plays() -> None:
    hostile = [line.encode() for line in HOSTILE_LINES[:12]] + [b"\xff\xfe bytes that are not UTF-8"]
    script = b"\n".join([b"hello", *hostile, b"position fen B:W14,23:B9", b"go", b"quit", b"isready"]) + b"\n"
    done = subprocess.run(
        [sys.executable, "-m", "kingme", "engine"], input=script, capture_output=True, timeout=CHILD_TIMEOUT
    )
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 0, done.stderr.decode()
    assert lines[4] == "hellook"
    assert [line.split()[0] for line in lines[5:]] == ["error"] * len(hostile) + ["bestmove"]
    assert lines[-1] == "bestmove 9x18x27"


def test_an_external_engine_plays_the_same_moves_as_the_same_level_in_process() -> None:
    # ``kingme engine`` plays master; driven through the protocol at the same node budget, it
    # must choose exactly the in-process move in every position of a game, for both colours.
    engine = ExternalEngine.of(ENGINE_COMMAND)
    game = Game(Setup(seed="protocol-test"), ballot_openings()[3][1])
    while not game.is_over and len(game.moves) < 40:
        move = engine.choose(game, 300)
        assert move == choose_move(game, "master", 300), f"after {[str(m) for m in game.moves]}"
        game.push(move)


def test_a_match_against_kingme_engine_through_the_protocol_is_even() -> None:
    # Master has no noise, so both colourings replay the same game and the score is exactly even.
    external = Contestant.external(ENGINE_COMMAND, 300)
    result = run_match(Contestant("master", 300), external, openings=1, workers=1)
    assert result.games == 2 and result.score == 0.5
    assert str(external) == f"engine:{ENGINE_COMMAND}"


def test_an_engine_that_cannot_be_started_or_does_not_speak_the_protocol_is_named() -> None:
    with pytest.raises(KingmeError, match="cannot be started"):
        ExternalEngine("/nonexistent/engine")
    with pytest.raises(KingmeError, match="stopped"):
        ExternalEngine(f"{shlex.quote(sys.executable)} -c pass")
    with pytest.raises(KingmeError, match="is empty"):
        ExternalEngine("  ")


#: A program that greets like an engine and then answers every ``go`` with the given line.
FAKE_ENGINE = """
import sys
for line in sys.stdin:
    if line.startswith("hello"):
        print("id name fake", "hellook", sep="\\n", flush=True)
    elif line.startswith("go"):
        print(sys.argv[1], flush=True)
"""


@pytest.mark.parametrize(
    ("answer", "complaint"),
    [
        ("bestmove 1-5", "played '1-5'"),
        ("error no idea", "answered: error no idea"),
        ("bestmove", "played ''"),
        ("info depth 2 score lots\nbestmove 11-15", "sent a score that is not a whole number: 'lots'"),
    ],
)
def test_an_engine_that_answers_badly_is_named_with_its_answer(answer: str, complaint: str) -> None:
    engine = ExternalEngine(f"{shlex.quote(sys.executable)} -c {shlex.quote(FAKE_ENGINE)} {shlex.quote(answer)}")
    with pytest.raises(KingmeError, match=complaint):
        engine.choose(Game(), 100)


@pytest.mark.parametrize("argv", [["match", "club"], ["match", "club", "casual", "--engine", "kingme engine"]])
def test_kingme_match_wants_either_a_second_level_or_an_engine(argv: list[str], capsys) -> None:
    from kingme.cli import main

    assert main(argv) == 2
    assert "name the second contestant as LEVEL_B or as --engine CMD" in capsys.readouterr().err


def test_an_engines_score_is_that_of_its_last_info_line_or_none_without_one() -> None:
    def fake(answer: str) -> ExternalEngine:
        return ExternalEngine(f"{shlex.quote(sys.executable)} -c {shlex.quote(FAKE_ENGINE)} {shlex.quote(answer)}")

    infos = "info depth 3 score 12 nodes 50\ninfo depth 4 nodes 80\ninfo depth 5 score -7 nodes 90 pv 11-15"
    assert fake(f"{infos}\nbestmove 11-15").search(Game(), 100) == (Game().board.parse_move("11-15"), -7)
    assert fake("bestmove 11-15").search(Game(), 100)[1] is None
