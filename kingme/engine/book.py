"""The opening book: deep searches done once, so the early middlegame is played from them.

A checkers game between engines is often decided in the plies just after the opening ballot,
where a search at playing speed cannot yet see how a formation will hold (Cake's book cut its
losses against Kingsrow from 17 to 3 in 288 games). ``data/book.txt`` holds, for the positions
on the main line of each 3-move ballot, the move a much longer search of this engine chose; the
master level (``Plan.book``) plays it instead of searching. The book is a fixed file
read by position, so a move from it is as deterministic as a searched one.

The file is text, one position a line, ``FEN MOVE SCORE DEPTH NODES`` — the move with its whole
route, the search's score for the side to move, the depth it completed and its node budget —
after ``#`` comments. It is read as hostile input: a line whose FEN does not parse, whose move
is not legal there, or whose numbers are not numbers is refused with its line number.

``build`` grows it: for each ballot it follows the main line — the book's move where there is
one searched with at least the build's budget, else a new search whose line is appended at once
(a later line for a position replaces an earlier one, so a build with a bigger budget deepens
the book); a forced move needs none. A stopped build loses at most the search it was in, and
running it again goes on where it stopped.

>>> book = Book.from_text("W:W17,22-32:B1-4,6-13 23-18 12 19 16000000")
>>> game = Game(moves=["9-13", "21-17", "5-9"])  # ballot 001
>>> str(book.move(game.board)), game.board in book
('23-18', True)
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TextIO

from kingme.engine.ballots import ballot_openings
from kingme.game import Game
from kingme.rules import Board, KingmeError, Move

BOOK_FILE = "data/book.txt"
#: Plies of each ballot's main line the book covers after the ballot's three moves.
BOOK_PLIES = 8
#: The search behind each book move: four times master's budget, so the book knows more than
#: the game's own search would find at the same point.
BOOK_NODES = 16_000_000

#: ``progress(done, total)``: the main-line plies walked (each a deep search, seconds long, when
#: the book lacks it) out of ``ballots * plies``; a line that ends early skips the rest of its plies.
Progress = Callable[[int, int], None]


class BookError(KingmeError):
    """A book file that cannot be read: names the line and what is wrong with it."""


@dataclass(frozen=True)
class Entry:
    """One position's book move, with the score and depth its search reached and its budget."""

    fen: str
    move: str
    score: int
    depth: int
    nodes: int

    def line(self) -> str:
        return f"{self.fen} {self.move} {self.score} {self.depth} {self.nodes}"


class Book:
    """Book moves by position (the position's FEN)."""

    def __init__(self, entries: dict[str, Entry]) -> None:
        self._entries = entries

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, board: Board) -> bool:
        return board.fen() in self._entries

    def get(self, board: Board) -> Entry | None:
        """The entry for ``board``'s position, or ``None`` if the book does not have it."""
        return self._entries.get(board.fen())

    def added(self, entry: Entry) -> Book:
        """This book with ``entry`` too (the book itself is not changed)."""
        return Book({**self._entries, entry.fen: entry})

    def move(self, board: Board) -> Move:
        """The book move in ``board``'s position, with its whole route; ``KeyError`` if none."""
        return board.parse_move(self._entries[board.fen()].move)

    @classmethod
    def from_text(cls, text: str, name: str = "book") -> Book:
        entries: dict[str, Entry] = {}
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if line and not line.startswith("#"):
                entry = _parse_line(line, f"{name}, line {number}")
                entries[entry.fen] = entry
        return cls(entries)


def _parse_line(line: str, where: str) -> Entry:
    fields = line.split()
    if len(fields) != 5:
        raise BookError(f"{where}: expected FEN MOVE SCORE DEPTH NODES, found {len(fields)} fields")
    fen, text, *numbers = fields
    try:
        board = Board(fen)
        move = board.parse_move(text)
    except KingmeError as error:
        raise BookError(f"{where}: {error}") from None
    if not all(n.lstrip("-").isdigit() for n in numbers):
        raise BookError(f"{where}: score, depth and nodes must be whole numbers, not {' '.join(numbers)[:60]!r}")
    score, depth, nodes = map(int, numbers)
    return Entry(board.fen(), str(move), score, depth, nodes)


def stored_path() -> Path:
    """Where the package keeps its book (read in play, grown by ``kingme book build``)."""
    return Path(str(resources.files("kingme.engine").joinpath(BOOK_FILE)))


@cache
def stored_book() -> Book:
    """The book shipped in the package (empty if it has not been built)."""
    source = stored_path()
    return Book.from_text(source.read_text(), BOOK_FILE) if source.is_file() else Book({})


def build(
    path: Path,
    ballots: int,
    plies: int = BOOK_PLIES,
    nodes: int = BOOK_NODES,
    progress: Progress | None = None,
    workers: int = 1,
) -> int:
    """Grow the book at ``path`` over the first ``ballots`` ballots; the number of new entries.

    Each new entry is appended (and flushed) as soon as its search ends — with ``workers`` > 1,
    as soon as its ballot's line ends, the ballots' lines searched side by side in that many
    processes — ; a last line cut short by a stopped build is dropped, and every other line is
    checked, before anything is added.
    """
    text = path.read_text() if path.exists() else ""
    if not text.endswith("\n") and "\n" in text:  # a line cut short by a stopped build
        text = text[: text.rindex("\n") + 1]
        path.write_text(text)
    book = Book.from_text(text, str(path))
    lines = [moves for _, moves in ballot_openings()[:ballots]]
    added = 0
    with path.open("a") as out, contextlib.ExitStack() as stack:
        if not text:
            out.write(
                "# kingme opening book: FEN MOVE SCORE DEPTH NODES, one position a line "
                "(see kingme/engine/book.py); grown by `kingme book build`\n"
            )
        if workers > 1:
            # Spawned, as the match's workers are: a forked numba process can deadlock.
            pool = stack.enter_context(multiprocessing.get_context("spawn").Pool(workers))
            grow = functools.partial(_grown_line, book=book, plies=plies, nodes=nodes)
            finished: Iterable[list[Entry]] = pool.imap_unordered(grow, lines, chunksize=1)
        else:
            # Lazily, so each line starts from ``book`` as the loop below has grown it: a line
            # reaching a position an earlier ballot's line searched (a transposition) reuses it.
            finished = (_grown_line(moves, book, plies, nodes, out) for moves in lines)
        for done, entries in enumerate(finished):
            if progress:
                progress(done * plies, ballots * plies)
            for entry in entries:
                if workers > 1:
                    out.write(entry.line() + "\n")
                    out.flush()
                book = book.added(entry)
            added += len(entries)
        if progress:
            progress(ballots * plies, ballots * plies)
    return added


def _grown_line(moves: Sequence[str], book: Book, plies: int, nodes: int, out: TextIO | None = None) -> list[Entry]:
    """The new entries of one ballot's main line (the ballot's ``moves``, then ``plies`` plies
    of the book's moves, each position the book lacks at ``nodes`` searched), each written to
    ``out`` as soon as it is found when given. Another process's line may reach a position this
    one searches too (a transposition): both searches are the same, so either line serves."""
    from kingme.engine.analysis import analyse  # the search (numba): not for ``book build --help``

    game = Game(moves=moves)
    entries: list[Entry] = []
    for _ in range(plies):
        if game.is_over:
            break
        legal = game.legal_moves()
        known = book.get(game.board)
        if len(legal) > 1 and (known is None or known.nodes < nodes):
            result = analyse(game, 64, nodes)
            entry = Entry(game.board.fen(), str(result.move), result.score, result.depth, nodes)
            if out is not None:
                out.write(entry.line() + "\n")
                out.flush()
            book = book.added(entry)
            entries.append(entry)
        game.push(legal[0] if len(legal) == 1 else book.move(game.board))
    return entries
