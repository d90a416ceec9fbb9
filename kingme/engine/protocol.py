"""The kingme engine protocol: one command a line in, reply lines out (``kingme engine``).

The protocol is a pure state machine, ``respond(state, line)`` → ``Answer`` (the next state, the
reply lines and whether to stop), so every command and every error is tested without a process;
``serve`` only wires it to a pair of text streams. A bad line never changes the state: its
answer is one ``error <reason>`` line and the engine keeps listening. The commands and replies
are documented in ``docs/engine-protocol.md``; ``PROTOCOL_VERSION`` changes when they do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TextIO

from kingme import __version__
from kingme.engine.levels import LEVELS, check_level
from kingme.engine.player import choose_move, think
from kingme.game import MAX_RECORD_MOVES, Game, Setup
from kingme.rules import VARIANTS, KingmeError
from kingme.rules.fen import START_FEN

ENGINE_NAME = "kingme"
PROTOCOL_VERSION = 1
#: The level ``go`` plays when it names none.
DEFAULT_LEVEL = "master"
#: Bounds on ``go``'s budgets: a billion nodes is minutes of search; 60 plies is master's depth.
MAX_NODES = 1_000_000_000
MAX_DEPTH = 60
#: The longest line read: a position with the longest game record the rules allow fits.
MAX_LINE = 16 * MAX_RECORD_MOVES
#: How much of a hostile word an error message quotes.
_QUOTE = 40


class ProtocolError(KingmeError):
    """A command line that the protocol cannot carry out (unknown, malformed or out of range)."""


@dataclass(frozen=True)
class EngineState:
    """What the engine knows between commands: the game to move in (variant, start position,
    seed and the moves played from it, which repetition and the 80-ply rule depend on)."""

    game: Game = field(default_factory=Game)

    @property
    def setup(self) -> Setup:
        return self.game.setup


@dataclass(frozen=True)
class Answer:
    """The reply to one line: the state after it, the lines to write, and whether to stop."""

    state: EngineState
    lines: tuple[str, ...] = ()
    quit: bool = False


def _quote(text: str) -> str:
    return repr(text[:_QUOTE] + ("…" if len(text) > _QUOTE else ""))


def _no_arguments(command: str, rest: str) -> None:
    if rest:
        raise ProtocolError(f"{command} takes no arguments, not {_quote(rest)}")


def _hello(state: EngineState, rest: str) -> Answer:
    _no_arguments("hello", rest)
    lines = (
        f"id name {ENGINE_NAME} {__version__}",
        f"id protocol {PROTOCOL_VERSION}",
        f"id variants {' '.join(VARIANTS)}",
        f"id levels {' '.join(LEVELS)}",
        "hellook",
    )
    return Answer(state, lines)


def _isready(state: EngineState, rest: str) -> Answer:
    _no_arguments("isready", rest)
    return Answer(state, ("readyok",))


def _newgame(state: EngineState, rest: str) -> Answer:
    _no_arguments("newgame", rest)
    return Answer(EngineState(Game(Setup(state.setup.variant, seed=state.setup.seed))))


def _variant(state: EngineState, rest: str) -> Answer:
    if rest not in VARIANTS:
        raise ProtocolError(f"unknown variant {_quote(rest)}; choose one of: {', '.join(VARIANTS)}")
    return Answer(EngineState(Game(Setup(rest, seed=state.setup.seed))))


def _seed(state: EngineState, rest: str) -> Answer:
    setup = replace(state.setup, seed=rest)  # the setup checks the seed
    return Answer(EngineState(Game(setup, state.game.moves)))


def _position(state: EngineState, rest: str) -> Answer:
    words = rest.split()
    if words[:1] == ["startpos"]:
        fen, words = START_FEN, words[1:]
    elif words[:1] == ["fen"] and len(words) >= 2:
        fen, words = words[1], words[2:]
    else:
        raise ProtocolError("position needs 'startpos' or 'fen FEN', then optionally 'moves M1 M2 ...'")
    if words and words[0] != "moves":
        raise ProtocolError(f"after the position expected 'moves', not {_quote(words[0])}")
    moves = words[1:]
    if len(moves) > MAX_RECORD_MOVES:
        raise ProtocolError(f"{len(moves)} moves; at most {MAX_RECORD_MOVES} are accepted")
    return Answer(EngineState(Game(Setup(state.setup.variant, fen, state.setup.seed), moves)))


@dataclass(frozen=True)
class GoOptions:
    """What ``go`` was asked for: the level and, replacing that level's budgets, nodes and depth."""

    level: str = DEFAULT_LEVEL
    nodes: int | None = None
    depth: int | None = None


def _count(name: str, text: str, most: int) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(most)) or not 1 <= int(text) <= most:
        raise ProtocolError(f"{name} must be a whole number from 1 to {most}, not {_quote(text)}")
    return int(text)


def parse_go(rest: str) -> GoOptions:
    """``go``'s arguments: pairs ``level L``, ``nodes N``, ``depth D``, each at most once."""
    words = rest.split()
    if len(words) % 2:
        raise ProtocolError(f"go takes pairs such as 'nodes 100000'; {_quote(words[-1])} has no value")
    given: dict[str, str] = {}
    for name, value in zip(words[::2], words[1::2], strict=True):
        if name == "movetime":
            raise ProtocolError(
                "kingme plays by nodes and depth, never by time, so that its moves are the same on every machine; "
                "'go movetime' is for engines that play by time"
            )
        if name not in ("level", "nodes", "depth"):
            raise ProtocolError(f"go knows level, nodes and depth, not {_quote(name)}")
        if name in given:
            raise ProtocolError(f"go was given {name} twice")
        given[name] = value
    return GoOptions(
        check_level(given.get("level", DEFAULT_LEVEL)),
        _count("nodes", given["nodes"], MAX_NODES) if "nodes" in given else None,
        _count("depth", given["depth"], MAX_DEPTH) if "depth" in given else None,
    )


def _go(state: EngineState, rest: str) -> Answer:
    options = parse_go(rest)
    game = state.game
    if game.is_over:
        raise ProtocolError(f"the game is over ({game.result.reason}); set another position")  # type: ignore[union-attr]
    if options.level == "random" or len(game.legal_moves()) == 1:
        # Nothing is searched: the move is the one ``choose_move`` plays, without info.
        return Answer(state, (f"bestmove {choose_move(game, options.level)}",))
    result = think(game, options.level, options.nodes, options.depth)
    pv = " ".join(str(move) for move in result.pv)
    info = f"info depth {result.depth} score {result.score} nodes {result.nodes} pv {pv}"
    return Answer(state, (info, f"bestmove {result.move}"))


def position_line(game: Game) -> str:
    """The ``position`` command that sets up ``game``'s start and moves (the seed and variant
    are set apart), as ``show`` reports it and ``kingme match`` sends it."""
    played = " ".join(str(move) for move in game.moves)
    return f"position fen {game.setup.fen}" + (f" moves {played}" if played else "")


def _show(state: EngineState, rest: str) -> Answer:
    _no_arguments("show", rest)
    game = state.game
    if game.result is None:
        status = "status playing"
    else:
        status = f"status over {game.result.winner or 'draw'} {game.result.reason}"
    lines = (
        f"variant {game.setup.variant}",
        f"seed {game.setup.seed}",
        position_line(game),
        f"fen {game.board.fen()}",
        f"legal {' '.join(str(m) for m in game.legal_moves())}".rstrip(),
        status,
    )
    return Answer(state, lines)


def _quit(state: EngineState, rest: str) -> Answer:
    _no_arguments("quit", rest)
    return Answer(state, quit=True)


COMMANDS: dict[str, Callable[[EngineState, str], Answer]] = {
    "hello": _hello,
    "isready": _isready,
    "newgame": _newgame,
    "variant": _variant,
    "seed": _seed,
    "position": _position,
    "go": _go,
    "show": _show,
    "quit": _quit,
}


def respond(state: EngineState, line: str) -> Answer:
    """The answer to one input line in ``state``; a bad line leaves the state as it was."""
    if len(line) > MAX_LINE:
        return Answer(state, (f"error the line has {len(line)} characters; at most {MAX_LINE} are read",))
    parts = line.split(maxsplit=1)
    if not parts:
        return Answer(state)
    command, rest = parts[0], parts[1].strip() if len(parts) > 1 else ""
    handler = COMMANDS.get(command)
    if handler is None:
        return Answer(state, (f"error unknown command {_quote(command)}; known: {', '.join(COMMANDS)}",))
    try:
        return handler(state, rest)
    except KingmeError as error:
        return Answer(state, ("error " + " ".join(str(error).split()),))


def serve(lines: Iterable[str], output: TextIO) -> None:
    """Answer ``lines`` one by one on ``output`` (flushed after each answer) until ``quit`` or
    the end of the input."""
    state = EngineState()
    for line in lines:
        answer = respond(state, line)
        for reply in answer.lines:
            output.write(reply + "\n")
        output.flush()
        if answer.quit:
            return
        state = answer.state
