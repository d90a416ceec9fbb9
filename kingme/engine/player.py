"""``choose_move`` and ``hint``: the computer's move in a game, as a pure function of the game.

Everything the choice depends on is the game's setup (variant, start position, seed), its moves
and the level; budgets are counted in nodes and depth, never in time, and the weaker levels'
mistakes come from a stream seeded by the game itself, so the same game gives the same reply in
any process on any machine — after an undo too.
"""

from __future__ import annotations

from dataclasses import replace

from kingme.engine.analysis import SearchResult, analyse, endgame_tables, noise_codes
from kingme.engine.book import stored_book
from kingme.engine.levels import PLANS, Plan, check_level
from kingme.engine.randomplay import pick_by_steps
from kingme.engine.seeding import SeededStream, game_stream
from kingme.game import Game
from kingme.rules import GameOverError, Move

HINT_LEVEL = "strong"


def _check_playable(game: Game) -> None:
    if game.is_over:
        raise GameOverError(f"the game is over ({game.result.reason}); there is no move to choose")  # type: ignore[union-attr]


def _noise(game: Game, plan: Plan, stream: SeededStream) -> dict[int, int]:
    amplitude = plan.noise
    if plan.slip_chance and stream.unit() < plan.slip_chance:
        amplitude = plan.slip_noise
    if not amplitude:
        return {}
    return {code: stream.below(2 * amplitude + 1) - amplitude for code in noise_codes(game)}


def think(
    game: Game, level: str, nodes: int | None = None, depth: int | None = None, book: bool = True
) -> SearchResult:
    """The search behind ``choose_move`` for a searching level (not ``random``), with its
    depth, score, nodes and principal variation; ``nodes`` and ``depth`` replace the level's
    budgets. A level with an opening book answers from it where it holds the position (0 nodes),
    unless ``book`` is false (benchmarks time the search itself)."""
    check_level(level)
    _check_playable(game)
    plan = PLANS[level]
    plan = replace(plan, nodes=plan.nodes if nodes is None else nodes, depth=plan.depth if depth is None else depth)
    board = game.board
    known = stored_book().get(board) if book and plan.book and board.variant.name == "american" else None
    if known is not None:
        move = board.parse_move(known.move)
        return SearchResult(move, known.score, known.depth, 0, (move,))
    noise = _noise(game, plan, game_stream(game, level))
    return analyse(game, plan.depth, plan.nodes, noise, plan.full_eval, plan.quiescence, plan.table_bits, plan.endings)


def choose_move(game: Game, level: str, nodes: int | None = None, book: bool = True) -> Move:
    """The move the computer at ``level`` plays in ``game``; the game is not changed.
    ``nodes`` replaces the level's node budget (matches at a chosen budget use it); with ``book``
    false the level searches where its opening book holds the position (an equal-time match
    times such searches for its reference, ``kingme.engine.equal_time``).

    Raises ``KingmeError`` for an unknown level or a finished game.
    """
    check_level(level)
    _check_playable(game)
    moves = game.legal_moves()
    if level == "random":
        return pick_by_steps(moves, game_stream(game, level))
    if len(moves) == 1:
        return moves[0]  # nothing to think about
    return think(game, level, nodes, book=book).move


def hint(game: Game) -> Move:
    """A suggested move for the side to move, with its whole capture route, searched at the
    strong level's budget without noise; the game is not changed."""
    return choose_move(game, HINT_LEVEL)


def warm_up(level: str | None = None) -> None:
    """Compile the numba core, or load it from the cache, so no player waits for it: one tiny
    search exercises every compiled function. With ``level``, also read what that level looks
    up, each once a process on its first use: its opening book and its endgame tables (about
    40 ms each with the 4-piece tables; an equal-time match times every move, and would count the
    reading as the thinking of the first move that uses them)."""
    analyse(Game(), depth=2, nodes=1_000, table_bits=4)
    plan = PLANS.get(level) if level else None
    if plan and plan.book:
        stored_book()
    if plan and plan.endings:
        endgame_tables()
