"""Matches between two levels over the standard 3-move ballot openings.

The openings are the 3-move ballots (``kingme.engine.ballots``). Each opening is played twice,
once with each level as Black, with the game's seed naming the opening and the colours, so a
match is exactly repeatable.

Importing this module loads no compiled code: a ``Contestant`` is data, and the player and the
protocol (which load numba, about half a second) are imported where a move is chosen, so that
``kingme match --help`` and its option checks answer at once.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import json
import math
import multiprocessing
import os
import shlex
import signal
import subprocess
import sys
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

from kingme.engine.ballots import ballot_openings
from kingme.engine.equal_time import (
    REFERENCE_POSITIONS,
    REFERENCE_PREFIX,
    Clock,
    MoveTimes,
    cpu_seconds,
    measure_reference,
    parse_reference,
    play_timed_game,
    reference_line,
)
from kingme.engine.levels import check_level
from kingme.game import Game, Setup
from kingme.game.pdn import check_appendable, game_to_pdn
from kingme.rules import KingmeError, Move

#: How an external engine contestant is written: ``engine:CMD``.
ENGINE_PREFIX = "engine:"


@dataclass(frozen=True)
class Contestant:
    """A computer player in a match: ``level`` of this kingme, or of the frozen copy of kingme
    in the directory ``frozen`` (a folder holding an older ``kingme`` package, e.g. made by
    ``git archive REV kingme | tar -x -C DIR``), or the external program ``engine`` (a command
    line speaking the kingme engine protocol, docs/engine-protocol.md; its ``level`` is unused),
    searching ``nodes`` nodes a move instead of the level's budget when given. Written
    ``LEVEL[@DIR]`` or ``engine:CMD`` on the command line. An external engine with
    ``equal_time`` is given time instead: for each move, the time its opponent used on its last
    one (``kingme.engine.equal_time``)."""

    level: str
    nodes: int | None = None
    frozen: str | None = None
    engine: str | None = None
    equal_time: bool = False

    @classmethod
    def external(cls, command: str, nodes: int | None = None) -> Contestant:
        """The program run by ``command``, asked for ``nodes`` nodes a move when given."""
        return cls("engine", nodes, engine=command)

    def __str__(self) -> str:
        if self.engine is not None:
            return f"{ENGINE_PREFIX}{self.engine}"
        return self.level if self.frozen is None else f"{self.level}@{self.frozen}"

    def check(self) -> None:
        """Raise ``KingmeError`` unless this contestant can play (its level exists; only an
        external engine plays by time) and be named on one line: the match record's header and
        the PDN's tags name it, and a line break in an engine command or a directory would split
        them (a resumed match would then refuse its own record)."""
        breaking = next((character for character in str(self) if _breaks_a_line(character)), None)
        if breaking is not None:
            what = f"engine command {self.engine!r}" if self.engine is not None else f"directory {self.frozen!r}"
            raise KingmeError(
                f"the {what} holds {breaking!r}, a control character or line separator; the match record "
                "and the PDN name each contestant on one line"
            )
        if self.engine is None:
            check_level(self.level)
            if self.equal_time:
                raise KingmeError(f"only an external engine can be given time: kingme's {self} plays by nodes")

    def process(self) -> int | None:
        """The id of the process this contestant's searches run in, started if it is not
        running yet; ``None`` for a level of this kingme, which searches in this process."""
        if self.engine is not None:
            return ExternalEngine.of(self.engine).pid
        return None if self.frozen is None else FrozenEngine.of(self.frozen).pid

    def choose(self, game: Game, movetime: int | None = None, book: bool = True) -> Move:
        """This contestant's move in ``game``; an external engine is given ``movetime``
        milliseconds for it when given. With ``book`` false a level of kingme (this one or a
        frozen copy) searches where its opening book holds the position; the protocol has no
        such switch, so an external engine plays as it would in a game."""
        if self.engine is not None:
            return ExternalEngine.of(self.engine).choose(game, self.nodes, movetime)
        if movetime is not None:
            raise KingmeError(f"kingme's {self} plays by nodes, not time")
        if self.frozen is None:
            from kingme.engine.player import choose_move

            return choose_move(game, self.level, self.nodes, book)
        return FrozenEngine.of(self.frozen).choose(game, self.level, self.nodes, book)


def _breaks_a_line(character: str) -> bool:
    """Whether ``character`` is a control character (a line break, a tab, an escape) or a line
    or paragraph separator, which a reader of lines may split a line at."""
    return unicodedata.category(character) in ("Cc", "Zl", "Zp")


#: Runs in a process of its own with the frozen copy first on ``sys.path``: says ``ready`` once
#: its compiled core is loaded (so that an equal-time match does not time the loading as a move),
#: then reads one request (JSON) a line and answers the frozen engine's move a line. Only APIs
#: every kingme version has: a request's ``nodes`` replace its level's budget and its ``book``
#: false switches the level's book off where the level has a plan (``random``, which searches
#: nothing, has none) and the plan a book.
_FROZEN_PROGRAM = """
import dataclasses, json, sys
sys.path.insert(0, sys.argv[1])
import kingme
if not kingme.__file__.startswith(sys.argv[1]):
    sys.exit(f"{sys.argv[1]} holds no kingme package")
from kingme.engine import levels
from kingme.engine.player import choose_move
from kingme.game import Game, Setup
from kingme.rules import KingmeError, Move
from kingme.engine import player
getattr(player, "warm_up", lambda: None)()  # older copies compile on their first move instead
print("ready", flush=True)
for line in sys.stdin:
    ask = json.loads(line)
    plan = levels.PLANS.get(ask["level"])  # none for random, which searches nothing
    if plan is not None:
        changes = {"nodes": ask["nodes"]} if ask["nodes"] else {}
        if not ask["book"] and "book" in {field.name for field in dataclasses.fields(plan)}:
            changes["book"] = False
        levels.PLANS[ask["level"]] = dataclasses.replace(plan, **changes)
    game = Game(Setup(ask["variant"], seed=ask["seed"]), ask["moves"])
    print(str(choose_move(game, ask["level"])), flush=True)
    if plan is not None:
        levels.PLANS[ask["level"]] = plan
"""


class ChildEngine:
    """A program answering moves from a child process, one per key (directory or command) and
    match worker, started on first use and ended with the worker; lines go in and come out."""

    _running: ClassVar[dict[tuple[type, str], ChildEngine]] = {}

    def __init__(self, key: str) -> None:
        argv, name = self._command(key)
        self.name = name
        try:
            self._process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, errors="replace"
            )
        except OSError as error:
            raise KingmeError(f"{name} cannot be started: {error}") from None
        atexit.register(self._end)
        # Listed before it is greeted, so that a worker stopped while waiting for the greeting
        # ends this child too (``stop_all``); a child that fails its greeting is ended at once.
        ChildEngine._running[type(self), key] = self
        try:
            self._greet()
        except BaseException:
            del ChildEngine._running[type(self), key]
            self._end()
            raise

    def _greet(self) -> None:
        """Wait for the child to be ready to answer; each kind of child that greets says how."""

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self._process.pid

    @staticmethod
    def _command(key: str) -> tuple[list[str], str]:
        """The program to start for ``key`` and how messages name it; each kind of child says."""
        raise NotImplementedError

    @classmethod
    def of(cls, key: str) -> Self:
        """The running child for ``key``, started on first use."""
        if (cls, key) not in ChildEngine._running:
            cls(key)  # lists itself
        return ChildEngine._running[cls, key]  # type: ignore[return-value]

    def _end(self) -> None:
        """Kill the child and reap it without the ``Popen`` methods: those take a lock that the
        process may already hold where this interrupts it (a worker's SIGTERM handler calls this,
        and the pool's SIGTERM can arrive while the worker's exit is killing the child through
        ``Popen.kill``: a match once hung there after its last game)."""
        if self._process.returncode is not None:
            return  # reaped already (here or by Popen): its number may be another process's now
        with contextlib.suppress(ProcessLookupError, ChildProcessError):  # gone, or reaped
            os.kill(self._process.pid, signal.SIGKILL)
            _, status = os.waitpid(self._process.pid, 0)
            # Recorded as Popen would, so that neither a second call (atexit after stop_all) nor
            # Popen itself sends a signal or waits on a number the system may have given away.
            self._process.returncode = os.waitstatus_to_exitcode(status)

    @staticmethod
    def stop_all() -> None:
        """Kill every running child and reap it. A match worker told to stop calls this: killed
        outright, it would leave its children searching on until they found its pipe closed."""
        for child in ChildEngine._running.values():
            child._end()
        ChildEngine._running.clear()

    def send(self, *lines: str) -> None:
        assert self._process.stdin is not None
        try:
            self._process.stdin.write("".join(line + "\n" for line in lines))
            self._process.stdin.flush()
        except BrokenPipeError:
            raise KingmeError(f"{self.name} stopped (exit status {self._process.wait()})") from None

    def receive(self) -> str:
        """The child's next line, without its end; ``KingmeError`` if the child has stopped."""
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise KingmeError(f"{self.name} stopped (exit status {self._process.wait()})")
        return line.strip()


class FrozenEngine(ChildEngine):
    """A frozen copy of kingme answering moves from a child process."""

    @staticmethod
    def _command(directory: str) -> tuple[list[str], str]:
        if not (Path(directory) / "kingme" / "__init__.py").is_file():
            raise KingmeError(f"{directory} holds no kingme package to play against")
        argv = [sys.executable, "-c", _FROZEN_PROGRAM, str(Path(directory).resolve())]
        return argv, f"the frozen engine in {directory}"

    def _greet(self) -> None:
        if (line := self.receive()) != "ready":
            raise KingmeError(f"{self.name} said {line[:40]!r} instead of ready")

    def choose(self, game: Game, level: str, nodes: int | None, book: bool = True) -> Move:
        ask: dict[str, Any] = {"variant": game.setup.variant, "seed": game.setup.seed, "level": level, "nodes": nodes}
        ask |= {"moves": [str(move) for move in game.moves], "book": book}
        self.send(json.dumps(ask))
        return game.board.parse_move(self.receive())


class ExternalEngine(ChildEngine):
    """A program speaking the kingme engine protocol (docs/engine-protocol.md), such as
    ``kingme engine``: greeted once with ``hello``, then told the variant, seed and position
    (start and moves, for the repetition and 80-ply rules) and asked ``go`` for each move."""

    @staticmethod
    def _command(command: str) -> tuple[list[str], str]:
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise KingmeError(f"engine command {command!r}: {error}") from None
        if not argv:
            raise KingmeError("the engine command is empty")
        return argv, f"the engine {command!r}"

    def _greet(self) -> None:
        self.send("hello")
        self._expect("hellook")

    def _expect(self, reply: str, info: Callable[[str], None] | None = None) -> str:
        """Read to the first line that is ``reply`` or starts with ``reply `` (``id`` and
        ``info`` lines on the way are skipped, each ``info`` line's rest given to ``info``) and
        return its rest; an ``error`` line raises ``KingmeError``."""
        while True:
            line = self.receive()
            word, _, rest = line.partition(" ")
            if word == "error":
                raise KingmeError(f"{self.name} answered: {line}")
            if word == reply:
                return rest.strip()
            if word == "info" and info:
                info(rest)

    def search(self, game: Game, nodes: int | None, movetime: int | None = None) -> tuple[Move, int | None]:
        """The engine's move in ``game`` (searching ``nodes`` nodes, or ``movetime`` milliseconds
        when given) and the score of its last ``info`` line (for the side to move), ``None`` if it
        sent none (as ``kingme engine`` does for a forced move)."""
        from kingme.engine.protocol import position_line

        setup = game.setup
        commands = (f"variant {setup.variant}", f"seed {setup.seed}", position_line(game))
        if any("\n" in line or "\r" in line for line in commands):
            raise KingmeError(f"the game's seed {setup.seed!r} cannot be sent on one line")
        budget = f" movetime {movetime}" if movetime is not None else f" nodes {nodes}" if nodes is not None else ""
        self.send(*commands, "go" + budget)
        infos: list[str] = []
        answer = self._expect("bestmove", infos.append)
        try:
            move = game.board.parse_move(answer)
        except KingmeError as error:
            raise KingmeError(f"{self.name} played {answer[:40]!r}: {error}") from None
        return move, next((score for score in map(self._score, reversed(infos)) if score is not None), None)

    def _score(self, info: str) -> int | None:
        """The ``score S`` of an ``info`` line's rest, ``None`` if it has none."""
        words = info.split()
        for name, value in itertools.pairwise(words):
            if name == "score":
                try:
                    return int(value)
                except ValueError:
                    raise KingmeError(f"{self.name} sent a score that is not a whole number: {value[:20]!r}") from None
        return None

    def choose(self, game: Game, nodes: int | None, movetime: int | None = None) -> Move:
        return self.search(game, nodes, movetime)[0]


@dataclass(frozen=True)
class GameTask:
    opening: tuple[str, ...]
    black: Contestant
    white: Contestant
    seed: str
    variant: str = "american"
    ballot: str = "-"  # the ballot's number, for the PDN's Round tag


def play_game(task: GameTask) -> Game:
    """Play one game to its end under the rules."""
    game = Game(Setup(task.variant, seed=task.seed), list(task.opening))
    while not game.is_over:
        game.push((task.black if game.turn == "black" else task.white).choose(game))
    return game


def _to_elo(score: float) -> float:
    if score <= 0 or score >= 1:
        return math.copysign(math.inf, score - 0.5)
    return -400 * math.log10(1 / score - 1)


@dataclass(frozen=True)
class MatchResult:
    """Wins, draws and losses of level ``a`` against level ``b``."""

    a: str
    b: str
    wins: int
    draws: int
    losses: int
    #: In an equal-time match, every game's times, ``a`` the pacer.
    times: MoveTimes | None = None
    #: In an equal-time match, the pacer's reference time in milliseconds.
    reference: int | None = None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """``a``'s share of the points (a draw is half a point)."""
        return (self.wins + self.draws / 2) / self.games

    def elo_interval(self) -> tuple[float, float, float]:
        """Elo difference of ``a`` over ``b`` and its 95% interval (low, high), from the standard
        error of the per-game score; a bound is infinite where the score interval reaches 0% or
        100%."""
        n, p = self.games, self.score
        variance = (self.wins * (1 - p) ** 2 + self.draws * (0.5 - p) ** 2 + self.losses * p**2) / n
        margin = 1.96 * math.sqrt(variance / n)
        return _to_elo(p), _to_elo(p - margin), _to_elo(p + margin)

    def elo(self) -> tuple[float, float]:
        """Elo difference and the half-width of its 95% interval (infinite if a bound is)."""
        elo, low, high = self.elo_interval()
        half_width = (high - low) / 2
        return elo, half_width if math.isfinite(half_width) else math.inf

    def describe_elo(self) -> str:
        """The Elo difference in words: ``+255 ± 155 (95%)``, or the finite bound when the
        interval is open."""
        elo, low, high = self.elo_interval()
        if math.isfinite(low) and math.isfinite(high):
            return f"{elo:+.0f} ± {(high - low) / 2:.0f} (95%)"
        if math.isfinite(low):
            return f"{elo:+.0f}, at least {low:+.0f} (95%)" if math.isfinite(elo) else f"at least {low:+.0f} (95%)"
        if math.isfinite(high):
            return f"{elo:+.0f}, at most {high:+.0f} (95%)" if math.isfinite(elo) else f"at most {high:+.0f} (95%)"
        return "not measurable: one side took every point"


def _tasks(a: Contestant, b: Contestant, openings: int, variant: str) -> Iterator[GameTask]:
    for number, moves in ballot_openings()[:openings]:
        yield GameTask(tuple(moves), a, b, f"ballot-{number}-a-black", variant, number)
        yield GameTask(tuple(moves), b, a, f"ballot-{number}-b-black", variant, number)


@dataclass(frozen=True)
class PlayedGame:
    """One finished match game as it comes back from a worker: its seed (which tells games
    arriving in any order apart), the winning colour or ``None`` for a draw, and the game as PDN
    (contestants in the Black and White tags, the ballot in Round, the match in Event)."""

    seed: str
    winner: str | None
    pdn: str
    times: MoveTimes | None = None  # in an equal-time match


def _played(task: GameTask, event: str, reference: int | None, clock: Clock = cpu_seconds) -> PlayedGame:
    """``task``'s game played; at equal time (``reference`` the pacer's reference time) timed."""
    game, times = (play_game(task), None) if reference is None else play_timed_game(task, reference, clock)
    tags = {"Event": event, "Date": time.strftime("%Y.%m.%d"), "Round": task.ballot}
    tags |= {"Black": str(task.black), "White": str(task.white)}
    return PlayedGame(task.seed, game.result.winner, game_to_pdn(game, tags), times)  # type: ignore[union-attr]


class MatchRecord:
    """A match's finished games in a text file, so a long match stopped halfway goes on where it
    stopped: a header line naming the match, in an equal-time match the pacer's reference time
    (``reference_line``), then ``SEED WINNER`` for each game as it ends (``black``, ``white`` or
    ``draw``), followed in an equal-time match by the game's times (``MoveTimes.text``). A line
    cut short by a crash is ignored; a file that belongs to another match, or an equal-time record
    whose games were played without a reference time (by the rule before it), is refused rather
    than mixed in."""

    OUTCOMES: ClassVar[dict[str, str | None]] = {"black": "black", "white": "white", "draw": None}

    def __init__(self, path: Path, header: str, timed: bool = False) -> None:
        self.path = path
        self.header = f"# kingme match {header}"
        self.results: dict[str, str | None] = {}
        self.times: dict[str, MoveTimes] = {}
        self.reference: int | None = None
        try:
            if not path.exists():
                path.write_text(self.header + "\n")
                return
            lines = path.read_text().split("\n")
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror.lower() if isinstance(error, OSError) and error.strerror else "not a text file"
            raise KingmeError(f"{path}: cannot use it as the match record ({reason})") from None
        if lines[0] != self.header:
            raise KingmeError(f"{path} records another match ({lines[0][:120]!r}); name a new file")
        games = lines[1:-1]  # the last piece has no newline yet: a line cut short, or nothing
        if timed and games and games[0].startswith(REFERENCE_PREFIX):
            try:
                self.reference = parse_reference(games.pop(0))
            except KingmeError as error:
                raise KingmeError(f"{path}: {error}") from None
        for line in games:
            seed, _, rest = line.partition(" ")
            outcome, _, times = rest.partition(" ")
            if outcome not in self.OUTCOMES or bool(times) != timed:
                raise KingmeError(f"{path}: not a game result: {line[:80]!r}")
            self.results[seed] = self.OUTCOMES[outcome]
            if timed:
                try:
                    self.times[seed] = MoveTimes.parse(times)
                except KingmeError as error:
                    raise KingmeError(f"{path}: the times of {seed[:40]!r}: {error}") from None
        if timed and self.results and self.reference is None:
            raise KingmeError(
                f"{path} holds equal-time games played without a reference time, by an earlier rule; name a new file"
            )
        if lines[-1]:
            path.write_text("\n".join(lines[:-1]) + "\n")  # drop the cut line before appending

    def add(self, game: PlayedGame) -> None:
        """Append one finished game (``results`` holds only what the file held when opened)."""
        times = f" {game.times.text()}" if game.times else ""
        with self.path.open("a") as file:
            file.write(f"{game.seed} {game.winner or 'draw'}{times}\n")

    def add_reference(self, milliseconds: int) -> None:
        """Keep the pacer's reference time, before any game (``reference_line``)."""
        with self.path.open("a") as file:
            file.write(reference_line(milliseconds) + "\n")


def _end_worker(signum: int, _frame: object) -> None:
    """A match worker's SIGTERM, which the pool sends when the match stops: end the frozen and
    external engines it started, then itself."""
    ChildEngine.stop_all()
    os._exit(128 + signum)


def _warm_up(level: str | None = None) -> None:
    """Load the compiled core, and ``level``'s book and tables when given (kept apart so that
    importing this module loads none)."""
    from kingme.engine.player import warm_up

    warm_up(level)


def _start_worker(level: str | None) -> None:
    """A match worker ignores Ctrl-C, which a terminal sends to every process of the command: the
    main process stops and ends the pool, so the operator sees one line rather than a traceback
    per worker. Ended by the pool, it ends its child engines first. Then it loads the compiled
    core before its first game, and ``level``'s book and tables when given (``_timed_level``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _end_worker)
    _warm_up(level)


def _timed_level(pacer: Contestant, engine: Contestant) -> str | None:
    """The level whose book and tables a worker reads before its first game: an equal-time
    pacer's, when it is a level of this kingme, so that reading them is not timed as a move. (A
    frozen copy reads its own on first use, in its first game in each worker.)"""
    return pacer.level if engine.equal_time and pacer.engine is None and pacer.frozen is None else None


def _reference(
    pacer: Contestant, book: MatchRecord | None, clock: Clock, progress: Callable[[str], None] | None
) -> int:
    """The pacer's reference time for an equal-time match: read back from the record, or measured
    here (the compiled core loaded first, so that loading it is not timed) and kept in the record.
    One figure for the whole match rather than one a worker, so that every game, resumed or not,
    starts from the same time."""
    if book and book.reference is not None:
        reference, how = book.reference, f"read back from {book.path}"
    else:
        _warm_up()
        reference = measure_reference(pacer, clock)
        how = f"measured, the median over {REFERENCE_POSITIONS} ballot positions searched without its book"
        if book:
            book.add_reference(reference)
    if progress:
        progress(f"reference time of {pacer}: {reference:,} CPU ms a move ({how})")
    return reference


def run_match(
    a: str | Contestant,
    b: str | Contestant,
    openings: int,
    workers: int = 2,
    variant: str = "american",
    progress: Callable[[str], None] | None = None,
    record: Path | None = None,
    pdn: Path | None = None,
    clock: Clock = cpu_seconds,
) -> MatchResult:
    """Play ``openings`` ballots twice each (colours reversed) between ``a`` and ``b`` (levels
    or contestants); ``progress`` is told about each game as it ends. With ``record``, every
    finished game is written to that file, and games the file already holds are not played
    again (see ``MatchRecord``). With ``pdn``, every game played is appended to that file as
    PDN, its moves included, for replaying or for another engine to annotate. When ``b`` has
    ``equal_time``, ``a`` is the pacer: ``clock`` measures its moves and ``b``'s, and the pacer's
    reference time is measured here before the first game, once for every worker, or read back
    from ``record`` (``kingme.engine.equal_time``)."""
    a, b = (side if isinstance(side, Contestant) else Contestant(side) for side in (a, b))
    a.check()
    b.check()
    if a.equal_time:
        raise KingmeError("in an equal-time match the second contestant is given the time the first used")
    tasks = list(_tasks(a, b, openings, variant))
    by_seed = {task.seed: task for task in tasks}
    # The header leaves the number of ballots out: a record can be extended to more of them.
    b_budget = "equal time" if b.equal_time else b.nodes or "of the level"
    header = f"{a} vs {b}, {variant}, nodes a move {a.nodes or 'of the level'} / {b_budget}"
    book = MatchRecord(record, header, b.equal_time) if record else None
    if pdn:
        check_appendable(pdn)
    winners = {seed: winner for seed, winner in book.results.items() if seed in by_seed} if book else {}
    times = {seed: book.times[seed] for seed in winners} if book and b.equal_time else {}
    to_play = [task for task in tasks if task.seed not in winners]
    if progress and winners:
        progress(f"{len(tasks) - len(to_play)} of {len(tasks)} games already played ({record})")
    parallel = workers > 1 and len(to_play) > 1
    reference = book.reference if book else None
    if b.equal_time and to_play:
        reference = _reference(a, book, clock, progress)
        if parallel:
            ChildEngine.stop_all()  # the reference's: this process plays no game, they would idle
        else:
            _warm_up(_timed_level(a, b))  # the first move timed is not the compiled core loading
    play = functools.partial(_played, event=f"kingme match {header}", reference=reference, clock=clock)
    with contextlib.ExitStack() as stack:
        pool = None
        if parallel:
            context = multiprocessing.get_context("spawn")
            pool = stack.enter_context(context.Pool(workers, _start_worker, (_timed_level(a, b),)))
            results: Iterator[PlayedGame] = pool.imap_unordered(play, to_play, chunksize=1)
        else:
            results = map(play, to_play)
        for game in results:
            winners[game.seed] = game.winner
            if game.times:
                times[game.seed] = game.times
            if book:
                book.add(game)
            if pdn:
                with pdn.open("a", encoding="utf-8") as file:
                    file.write(game.pdn + "\n")
            if progress:
                task = by_seed[game.seed]
                winner = game.winner
                outcome = "draw" if winner is None else f"{task.black if winner == 'black' else task.white} wins"
                progress(f"game {len(winners)}/{len(tasks)} ({game.seed}, {task.black} black): {outcome}")
        if pool is not None:
            # Every game played: the workers are let go and end on their own, ending their
            # child engines as they exit (``ChildEngine._end``). Ending them by signal (the pool's
            # exit) once left a match hanging after its last game: a worker killed while it
            # held the task queue's lock, its neighbour waiting on that lock for ever.
            pool.close()
            pool.join()
    # Tasks alternate: ``a`` is Black in the even ones and White in the odd ones.
    a_colours = ["black" if i % 2 == 0 else "white" for i in range(len(tasks))]
    outcomes = [winners[task.seed] for task in tasks]
    wins = sum(1 for colour, winner in zip(a_colours, outcomes, strict=True) if winner == colour)
    draws = outcomes.count(None)
    every = sum((times[task.seed] for task in tasks), MoveTimes()) if b.equal_time else None
    return MatchResult(str(a), str(b), wins, draws, len(tasks) - wins - draws, every, reference)
