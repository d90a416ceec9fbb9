"""Classic positions from the literature, each with its source and its published solution.

A classic joins the collection only as far as the verifier accepts it: its line is kept up to
the last sound solver's move before the first point where the published move is not the only
decisive one, or (in an ending judged exactly: every classic of at most ``endgame.MAX_PIECES``
pieces, from the endgame tables or by solving it) not the only quickest win, or the published
defence is not the longest. The rest of a long ending is technique with several ways to win,
not a puzzle. A classic whose first move does not verify is left out altogether.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kingme.daily.puzzles.analysis import VERIFY_DEPTH
from kingme.daily.puzzles.model import Puzzle
from kingme.daily.puzzles.verifier import judge
from kingme.engine.endgame import MAX_PIECES
from kingme.rules import Board

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Classic:
    id: str
    title: str
    source: str
    fen: str
    line: tuple[str, ...]
    difficulty: str = "hard"


CLASSICS = (
    Classic(
        "first-position",
        "First Position: White to play and win",
        "First Position (Payne, 1756), as given in E. Lasker, Chess and Checkers: the Way to Mastership (1918)",
        "W:WK19,K23:B12,K28",
        ("23-27", "28-32", "19-23", "32-28", "27-32", "28-24", "23-18"),
    ),
    Classic(
        "first-position-crowning",
        "First Position, crowning first: White to play and win",
        "American Checker Federation, Standard Positions: winning 1st Position",
        "W:W20,K15:B12,K28",
        ("15-19", "28-32", "20-16", "32-28", "16-11", "28-32", "11-7", "32-28", "7-3"),
    ),
    Classic(
        "second-position",
        "Second Position: White to play and win",
        "Second Position (A. Anderson), as given in E. Lasker, Chess and Checkers: the Way to Mastership (1918)",
        "W:W30,27,K22:B21,20,K9",
        ("30-26", "9-14", "26-23", "14-10", "23-18", "10-6", "18-14", "6-1", "14-9", "1-5", "9-6"),
    ),
    Classic(
        "negative-second-position",
        "Negative Second Position: Black to play and win",
        "W. Strickland, in B. Boland, Famous Positions in the Game of Checkers",
        "B:WK28,13,12:BK15,5,3",
        ("15-11", "28-32", "3-7", "32-27", "7-10", "27-31", "10-15"),
    ),
    Classic(
        "banks-jordan-1911",
        "Banks v Jordan, 1911: White to play and win",
        "N. W. Banks v A. Jordan, match game 5, Cedar Point, Ohio, 1911; in B. Boland, Famous Positions",
        "W:WK30,22,16,K2:B21,14,13,K10",
        ("2-7", "10x3", "16-11", "14-17", "30-26", "21-25", "26-23"),
    ),
    Classic(
        "bell-problem",
        "S. S. Bell: Black to play and win",
        "S. S. Bell, in B. Boland, Famous Positions in the Game of Checkers",
        "B:W26,23,21,20,19:B12,11,10,9,3",
        ("11-15", "19-16", "12x19", "23x16", "15-18", "16-11", "10-15"),
    ),
    Classic(
        "cresswell-problem",
        "E. E. Cresswell: Black to play and win",
        "E. E. Cresswell, in B. Boland, Famous Positions in the Game of Checkers",
        "B:W26,25,21,20,16:B14,8,7,5,3",
        ("5-9", "25-22", "8-11", "22-17", "11-15", "17x10", "7x14", "16-11", "14-18"),
    ),
    Classic(
        "canalejas-cannonball",
        "Canalejas' Cannonball: White to play and win",
        "Don Canalejas (18th century), in W. F. Ryan, Tricks Traps & Shots of the Checkerboard; "
        "after 11-16 23-18 16-20 24-19 8-11",
        "W:W18,19,21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,9,10,11,12,20",
        ("19-15", "10x19", "18-14", "9x18", "22x15x8", "4x11", "27-24", "20x27", "31x24x15x8"),
        "medium",
    ),
    Classic(
        "fools-trap",
        "The Fool's Trap: White to play and win",
        "W. F. Ryan, Tricks Traps & Shots of the Checkerboard; after 10-15 23-19 6-10 22-17 11-16",
        "W:W17,19,21,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,7,8,9,10,12,15,16",
        ("17-13", "16x23", "13x6", "2x9", "27x18x11x2"),
        "easy",
    ),
    Classic(
        "seeing-is-believing",
        "Seeing is believing: White to play and win",
        "The Checker Maven (Bob Newell), Beginner's Corner: Seeing is Believing, 2013",
        "W:W30,29,22,21,9,6:B24,20,16,13,8,7",
        ("22-17", "13x22", "29-25", "22x29", "30-25", "29x22", "21-17", "22x13", "6-1", "13x6", "1x10x3x12x19x28"),
        "medium",
    ),
)


def verified_classics(
    progress: Progress | None = None, depth: int = VERIFY_DEPTH
) -> tuple[tuple[Puzzle, ...], list[tuple[str, str]]]:
    """The classics that verify, each cut to its verified line, and ``(id, reason)`` for the rest."""
    kept, rejected = [], []
    for done, classic in enumerate(CLASSICS, start=1):
        line = tuple(classic.line[: len(classic.line) - (1 - len(classic.line) % 2)])  # end on a solver's move
        verdict = judge(classic.fen, line, depth, exact=Board(classic.fen).piece_count() <= MAX_PIECES)
        if verdict.failure is not None:
            ply = verdict.failure[0]
            line = line[: max(ply if ply % 2 else ply - 1, 0)]  # up to the last sound solver's move
        if line:
            slower = verdict.slower[: (len(line) + 1) // 2]
            kept.append(
                Puzzle(classic.id, classic.fen, line, classic.title, classic.source, classic.difficulty, slower)
            )
        else:
            rejected.append((classic.id, verdict.failure[1] if verdict.failure else "no line"))
        if progress:
            progress(done, len(CLASSICS))
    return tuple(kept), rejected
