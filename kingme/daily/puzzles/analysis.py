"""Every root move's score, from the engine's search: the measure of a puzzle.

The engine's search proves only its best move (alpha-beta cuts the others off), but a puzzle
needs to know that exactly one move wins. So each legal move is played and the position after it
searched to one ply less; the move's score is the negated score of that search. Scores are in
hundredths of a man for the side to move (a man 100, a king 130), ``MATE`` and above a won game.
There is no noise and no clock, so the same position always gets the same scores.

Endings with few pieces are judged exactly instead: from the endgame tables when the engine has
them for the ending (``kingme.engine.egdb``, a lookup per move), else by solving the ending
(``kingme.engine.endgame``, minutes and gigabytes for six pieces). A won move scores ``MATE``
less its distance, so a quicker win scores higher, a draw 0: the tables' distance is to
conversion (the next capture or man's move, as the engine plays endings), the solver's to the
end; both make the same moves winning, and the first sound four classics have the same
quickest moves by either (see docs/puzzles.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from kingme.engine import egdb
from kingme.engine.analysis import analyse, endgame_tables
from kingme.engine.egdb.moves import move_value
from kingme.engine.endgame import Endgame, EndgameTooLarge, solve
from kingme.engine.search import MATE
from kingme.game import Game, Setup
from kingme.rules import Board, Color, Move

#: The generator takes a move as decisive when it scores at least this (a man and a half ahead,
#: or a won game)...
DECISIVE = 150
#: ... and wants every other move to stay near level (at most this), so the win is clear.
QUIET = 60
#: Verification asks less than generation, so that a puzzle found by one engine still verifies
#: with a later one whose evaluation weighs the position differently: each solver's move must
#: win at least a man (``WINS``), and any other move that wins a man too must score at least a
#: man (``MARGIN``) less, or it is a second solution. A learned evaluation can score a clean
#: one-man win at 1.1 to 1.5 men once the winner's broken formation is counted, so the 1.5 men
#: of ``DECISIVE`` would reject sound shots; a move that wins two men where the solution wins
#: three is no second solution, one that wins as much is.
WINS = 100
MARGIN = 100
#: A solver's move that a later engine scores below ``WINS`` still verifies when it is the only
#: good move: at least this far ahead (half a man), with every other move ``MARGIN`` below it.
#: The line still wins its man of material, as the title says, and nothing else keeps an edge;
#: only the engine's opinion of what that man is worth has dropped, which is no fault a player
#: would hold against the puzzle (see docs/puzzles.md).
AHEAD = 50
#: The verification depth (plies, captures read to the end): the depth master read when the
#: collection was first verified; master reads 16 to 19 plies now, so lines in doubt go deeper.
VERIFY_DEPTH = 12
#: Where a line fails at the verification depth, it is searched again at each of these depths in
#: turn, while it still fails, before it is rejected (see ``kingme.daily.puzzles.verifier.judge``):
#: a quiet win of a man can score 0.6 of a man at 16 plies and 1.04 at 20 (g-6737d03cf5 with the
#: evaluation of session 11), and only the few lines in doubt pay for the deeper searches.
DEEPER_DEPTHS = (16, 20)
#: What a shallow reader sees; a puzzle's solution must not stand out at this depth.
SHALLOW_DEPTH = 3
#: A node budget per searched position, so one pathological position cannot stall a long run.
NODE_BUDGET = 3_000_000
#: Endings reaching more positions than this are searched rather than solved (Second Position
#: reaches 137 million and takes minutes and gigabytes; the limit lets it through).
EXACT_LIMIT = 150_000_000


@dataclass(frozen=True)
class Scored:
    move: Move
    score: int


def _after(board: Board, move: Move) -> Game:
    return Game(Setup("american", board.fen(), "puzzle-analysis"), [move])


def score_for(game: Game, side: Color, depth: int) -> int:
    """The score of ``game``'s position for ``side``, searched ``depth`` plies.

    Forced moves (the only legal one) are played first without using up depth, as the search
    itself does; the search answers such a position at once with a score of 0, which would hide
    a forced combination.
    """
    while game.result is None and len(moves := game.legal_moves()) == 1:
        game.push(moves[0])
    if game.result is not None:
        return 0 if game.result.winner is None else (MATE if game.result.winner == side else -MATE)
    score = analyse(game, max(depth, 1), NODE_BUDGET).score
    return score if game.turn == side else -score


def score_moves(board: Board, depth: int) -> list[Scored]:
    """Each legal move of ``board``'s side to move with its score at ``depth``, best first."""
    side = board.turn
    scored = [Scored(move, score_for(_after(board, move), side, depth - 1)) for move in board.legal_moves()]
    return sorted(scored, key=lambda s: (-s.score, s.move))


def best_reply(board: Board, depth: int) -> Move:
    """The engine's move for the side to move (the defender's best defence)."""
    return analyse(Game(Setup("american", board.fen(), "puzzle-analysis")), depth, NODE_BUDGET).move


def exact_table(board: Board) -> Endgame | None:
    """The exact values of everything reachable from ``board``, when it is small enough."""
    try:
        return solve(board, EXACT_LIMIT)
    except EndgameTooLarge:
        return None


def exact_scores(table: Endgame, board: Board) -> list[Scored]:
    """Each legal move with its exact score for the side to move, best first: ``MATE`` less the
    plies to the end for a win, 0 for a draw, below ``-MATE_BOUND`` for a loss."""
    scored = []
    for move in board.legal_moves():
        value = table.after(board, move)
        score = 0 if value.outcome == "draw" else MATE - value.plies
        scored.append(Scored(move, -score if value.outcome == "loss" else score))
    return sorted(scored, key=lambda s: (-s.score, s.move))


def database_tables(board: Board) -> egdb.Tables | None:
    """The engine's endgame tables (``endgame_tables``) when they hold ``board``'s pieces, else
    ``None``: the ending is then solved (``exact_table``) or searched."""
    tables = endgame_tables()
    pieces = board.piece_count()
    return tables if tables is not None and pieces <= tables.max_pieces else None


def table_scores(tables: egdb.Tables, board: Board, quiet: int) -> list[Scored]:
    """Each legal move with its score from the endgame tables for the side to move, best first:
    ``MATE`` less the plies to conversion for a win, 0 for a draw, below ``-MATE_BOUND`` for a
    loss, after ``quiet`` plies of the 80-ply count (``egdb.within_rule``: a win the count no
    longer allows is a draw)."""
    scored = []
    for move in board.legal_moves():
        value = egdb.within_rule(move_value(tables, board, move), quiet)
        score = MATE - egdb.plies(value) if egdb.is_win(value) or egdb.is_loss(value) else 0
        scored.append(Scored(move, -score if egdb.is_loss(value) else score))
    return sorted(scored, key=lambda s: (-s.score, s.move))
