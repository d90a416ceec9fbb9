"""Fast engine-against-engine games that record positions for training the evaluation network.

The data recipe behind ``kingme tune`` (see ``kingme.engine.network_training``), a ``Recipe``: game
``i`` starts from 3-move ballot ``i % 157``; for its first ``NOISY_PLIES`` plies every root move's
score gets a random offset of up to ``NOISE`` hundredths of a man (drawn from a generator seeded by
``i``, so a game is a pure function of its index, its recipe and the engine), after that it plays
its best move at the recipe's ``nodes`` nodes a move. Every position is recorded with the game's
result from Black's view — the label Cake's and Kingsrow's learned evaluations were fitted to — and
the score the search that chose its move gave it (``Position.score``): a game's result says only how
it ended, many plies later and mostly a draw between equal engines, while the search's score says
how the position itself stands. ``kingme tune net`` blends the two along each game (TD(lambda) returns).

Games are played on bitboards straight through the compiled core (no ``Game`` objects, no
endgame tables, so the recipe does not depend on what is installed), with
the rules' own draw conditions: a loss for the side without a move, a draw at the third
occurrence of a position with the same side to move, and at 80 quiet king plies. A game still
going after ``MAX_PLIES`` plies is a draw. Positions are appended to a file in batches of whole
games with a header line per batch, so an interrupted run loses at most one batch and resumes
after the last complete one.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

from kingme.engine import movegen
from kingme.engine import search as core
from kingme.engine.analysis import deepen
from kingme.engine.ballots import ballot_openings
from kingme.engine.movegen import MOVE_SIZE, moves_base
from kingme.game import NO_PROGRESS_PLIES, Game

#: Plies with root noise at the start of a game: enough to spread games over many middlegames.
NOISY_PLIES = 16
#: Root noise in hundredths of a man: confuses moves of near-equal value, rarely drops a man.
NOISE = 15
#: A game this long is called a draw (real games between equal engines rarely pass 150 plies).
MAX_PLIES = 220
#: Iterations at most: the node budget stops the search long before.
MAX_DEPTH = 63
#: Transposition table of 2**16 entries: plenty at a few tens of thousands of nodes a move.
TABLE_BITS = 16


@dataclass(frozen=True)
class Recipe:
    """Everything a self-play game depends on besides its index (and the engine's code): a game
    is a pure function of its index and its recipe, so one value, kept for a folder's whole run,
    says how every game in it was played. ``nodes`` a move; root noise of up to ``noise``
    hundredths of a man for the first ``noisy_plies`` plies; the search evaluating with the
    network, or without ``network`` with the linear table of material and squares."""

    nodes: int
    noise: int = NOISE
    noisy_plies: int = NOISY_PLIES
    network: bool = True


@dataclass(frozen=True)
class Position:
    """One recorded position: Black's, White's and the kings' bits, the side to move, the
    result of its game for Black (1 win, 0.5 draw, 0 loss) and the score of the search that
    chose its move, for Black in hundredths of a man (``None`` for a forced move, which is not
    searched, and in files written before scores were recorded)."""

    black: int
    white: int
    kings: int
    black_to_move: bool
    result: float
    score: int | None = None


@functools.cache
def _ballot_starts() -> tuple[tuple[int, int, int, bool], ...]:
    """(Black, White, kings, Black to move) after each ballot's three plies, in ballot order."""
    boards = [Game(moves=moves).board for _, moves in ballot_openings()]
    return tuple((board.black, board.white, board.kings, board.black_to_move) for board in boards)


def _start(index: int) -> tuple[int, int, int, bool]:
    return _ballot_starts()[index % len(_ballot_starts())]


def split_games(positions: list[Position]) -> list[list[Position]]:
    """A batch's positions, game by game. Every game starts at its ballot's position, and no
    later position of any game is a ballot's: after the ballot's three plies the men have made
    more moves forward, or there are fewer pieces."""
    starts = set(_ballot_starts())
    games: list[list[Position]] = []
    for p in positions:
        if not games or (p.black, p.white, p.kings, p.black_to_move) in starts:
            games.append([])
        games[-1].append(p)
    return games


def play_game(index: int, recipe: Recipe) -> list[Position]:
    """Game ``index`` played by ``recipe``; every position of it, labelled."""
    rng = np.random.default_rng(index)
    black_bits, white_bits, kings, black = _start(index)
    own, opp = (black_bits, white_bits) if black else (white_bits, black_bits)
    buffer = core.new_work(0)
    seen: list[tuple[int, int, int, bool, int | None]] = []
    keys: list[int] = []  # since the last capture or man move
    quiet = 0
    result = 0.5
    for ply in range(MAX_PLIES):
        key = int(core.position_key(own, opp, kings, black))
        if keys.count(key) >= 2:
            break  # third occurrence: draw
        n = int(movegen.generate(own, opp, kings, black, True, buffer, moves_base(0)))
        if n == 0:
            result = 0.0 if black else 1.0
            break
        if quiet >= NO_PROGRESS_PLIES:
            break
        offsets: dict[int, int] = {}
        if ply < recipe.noisy_plies and n > 1 and recipe.noise > 0:
            for i in range(n):
                m = moves_base(0) + i * MOVE_SIZE
                code = int(core.move_code(buffer[m], buffer[m + 1]))
                offsets[code] = int(rng.integers(-recipe.noise, recipe.noise + 1))
        score: int | None = None
        if n == 1:
            m = moves_base(0)
            origin, target, captured = (int(v) for v in buffer[m : m + 3])
        else:
            _, bits, score, _ = deepen(
                own,
                opp,
                kings,
                black,
                quiet,
                [*keys, key],
                MAX_DEPTH,
                recipe.nodes,
                noise=offsets,
                table_bits=TABLE_BITS,
                full_eval=recipe.network,
            )
            assert bits is not None, "a search of a few hundred nodes finishes its first root move"
            origin, target, captured = bits
            score = score if black else -score
        seen.append((own, opp, kings, black, score))
        keys.append(key)
        if captured or not kings & origin:
            keys.clear()
            quiet = 0
        else:
            quiet += 1
        own, opp, kings = (int(v) for v in movegen.play(own, opp, kings, black, origin, target, captured))
        black = not black
    positions = []
    for own_bits, opp_bits, king_bits, black_to_move, searched in seen:
        b, w = (own_bits, opp_bits) if black_to_move else (opp_bits, own_bits)
        positions.append(Position(b, w, king_bits, black_to_move, result, searched))
    return positions


def resume_batches(path: Path) -> int:
    """Cut ``path`` after its last complete batch (a header line ``# batch N``, its rows, and
    ``# end N``; anything after the last ``# end`` is a batch a crash interrupted) and return the
    number of the next batch. Self-play's files and ``relabel``'s are written this way."""
    if not path.exists():
        return 0
    text = path.read_text()
    cut = text.rfind("# end ")
    if cut < 0:
        path.write_text("")
        return 0
    line_end = text.index("\n", cut)
    if line_end + 1 != len(text):
        path.write_text(text[: line_end + 1])
    return int(text[cut:line_end].split()[2]) + 1


def write_batch(out: TextIO, number: int, rows: list[str]) -> None:
    """Append batch ``number`` of ``rows`` to ``out`` between its ``# batch`` and ``# end`` lines,
    and make it durable before going on (``resume_batches`` keeps only what ends in ``# end``)."""
    out.write("\n".join([f"# batch {number}", *rows, f"# end {number}"]) + "\n")
    out.flush()
    os.fsync(out.fileno())


def generate(
    path: Path,
    games: int,
    recipe: Recipe,
    batch: int = 20,
    worker: int = 0,
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
) -> int:
    """Append games played by ``recipe`` to ``path`` until it holds ``games`` games' worth of
    batches of ``batch``; with ``workers`` > 1 this process plays the batches ``b`` with
    ``b % workers == worker`` (each worker writes its own file). Returns the batches written by
    this call.

    A row is ``black white kings side result score`` (hex bits, ``b``/``w``, result and search
    score for Black, ``-`` for no score)."""
    start = resume_batches(path)
    total = (games + batch - 1) // batch
    written = 0
    with path.open("a") as out:
        for number in range(start, total):
            if number % workers != worker:
                # each worker's file counts only its own batches; skip the others' numbers
                continue
            rows = []
            for index in range(number * batch, (number + 1) * batch):
                for p in play_game(index, recipe):
                    side, score = "b" if p.black_to_move else "w", "-" if p.score is None else p.score
                    rows.append(f"{p.black:x} {p.white:x} {p.kings:x} {side} {p.result} {score}")
            write_batch(out, number, rows)
            written += 1
            if progress:
                progress(f"batch {number + 1}/{total} ({(number + 1) * batch} games)")
    return written


def read_batches(paths: list[Path]) -> Iterator[tuple[int, list[Position]]]:
    """(batch number, its positions) for every complete batch in ``paths``; a ``ValueError``
    naming the file and the line where a line is not what ``generate`` writes."""
    for path in paths:
        number = -1
        positions: list[Position] = []
        for line_number, line in enumerate(path.read_text().splitlines(), start=1):
            try:
                if line.startswith("# batch "):
                    number, positions = int(line.split()[2]), []
                elif line.startswith("# end "):
                    yield number, positions
                elif line:
                    positions.append(_position(line))
            except (ValueError, IndexError):
                raise ValueError(f"{path}, line {line_number}: not a self-play record: {line[:60]!r}") from None


def _position(line: str) -> Position:
    """A position line: Black, White and kings in hex, ``b`` or ``w`` to move, Black's result and
    the search's score (``-`` or nothing when the move was not searched)."""
    b, w, k, side, result, *score = line.split()
    if side not in ("b", "w") or float(result) not in (0.0, 0.5, 1.0):
        raise ValueError(line)
    searched = int(score[0]) if score and score[0] != "-" else None
    return Position(int(b, 16), int(w, 16), int(k, 16), side == "b", float(result), searched)
