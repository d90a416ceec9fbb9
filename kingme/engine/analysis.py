"""The search as Python sees it: a game in, a ``SearchResult`` out.

This is the bridge between the readable world (``Game``, ``Move``) and the compiled core: it
builds the work array, hands the core the keys of the game's positions since the last capture
or man move (so repetitions and the no-progress count inside the search match the game's own
rules), and maps the chosen root move back to the rules core's ``Move`` with its full route.
"""

from __future__ import annotations

from dataclasses import dataclass

from kingme.engine import search as core
from kingme.game import Game
from kingme.rules import Board, Move
from kingme.rules.fen import parse_fen


@dataclass(frozen=True)
class SearchResult:
    """The chosen move, its score for the side to move (hundredths of a man, noise included),
    the deepest completed iteration, the nodes searched and the principal variation."""

    move: Move
    score: int
    depth: int
    nodes: int
    pv: tuple[Move, ...]


def _sides(board: Board) -> tuple[int, int]:
    return (board.black, board.white) if board.black_to_move else (board.white, board.black)


def _recent_keys(game: Game) -> list[int]:
    """Keys of the positions since the last capture or man move, oldest first, the current one
    excluded, capped at what the no-progress rule can still reach."""
    position = parse_fen(game.setup.fen)
    black, white, kings, black_to_move = position.black, position.white, position.kings, position.black_to_move
    keys: list[int] = []
    for move in game.moves:
        own, opp = (black, white) if black_to_move else (white, black)
        keys.append(int(core.position_key(own, opp, kings, black_to_move)))
        origin, target = 1 << (move.from_square - 1), 1 << (move.to_square - 1)
        captured = sum(1 << (s - 1) for s in move.captures)
        if move.captures or not kings & origin:
            keys.clear()
        own, opp, kings = (int(v) for v in core.play(own, opp, kings, black_to_move, origin, target, captured))
        black, white = (opp, own) if black_to_move else (own, opp)
        black_to_move = not black_to_move
    return keys[-core.MAX_GAME_KEYS :]


def _as_move(board: Board, origin: int, target: int, captured: int) -> Move:
    """The rules core's move with these from/to bits and captures (the first route, when
    several routes take the same pieces)."""
    wanted = (origin.bit_length(), target.bit_length(), {i + 1 for i in range(32) if captured >> i & 1})
    for move in board.legal_moves():
        if (move.from_square, move.to_square, set(move.captures)) == wanted:
            return move
    raise AssertionError(f"engine move {wanted} is not legal in {board.fen()}")  # the cross-check tests forbid it


def _principal_variation(board: Board, first: Move, work: object, length: int) -> tuple[Move, ...]:
    board = board.copy()
    line = [first]
    board.push(first)
    seen = {board.key()}
    while len(line) < length:
        own, opp = _sides(board)
        code = int(core.table_move(work, core.position_key(own, opp, board.kings, board.black_to_move)))
        if code == 0:
            break
        origin, target = (code - 1) // 32 + 1, (code - 1) % 32 + 1
        matches = [m for m in board.legal_moves() if m.from_square == origin and m.to_square == target]
        if not matches:
            break
        board.push(matches[0])
        line.append(matches[0])
        if board.key() in seen:
            break
        seen.add(board.key())
    return tuple(line)


def analyse(
    game: Game,
    depth: int,
    nodes: int,
    noise: dict[int, int] | None = None,
    full_eval: bool = True,
    quiescence: bool = True,
    table_bits: int = 20,
) -> SearchResult:
    """Search the side to move's best move in ``game`` (not finished) within the budgets.

    ``noise`` maps root move codes (see ``noise_codes``) to an offset added to their scores.
    """
    board = game.board
    own, opp = _sides(board)
    work = core.new_work(table_bits)
    work[core.BUDGET_AT] = nodes
    work[core.COMPULSORY_AT] = board.variant.captures_compulsory
    work[core.FULL_EVAL_AT] = full_eval
    work[core.QUIESCENCE_AT] = quiescence
    keys = _recent_keys(game)
    work[core.KEYS_AT : core.KEYS_AT + len(keys)] = keys
    work[core.GAME_KEYS_AT] = len(keys)
    for code, offset in (noise or {}).items():
        work[core.NOISE_AT + code] = offset
    best, score, done = board.legal_moves()[0], 0, 0
    for iteration in range(1, depth + 1):
        work[core.BEST_AT] = 0
        value = int(
            core.negamax(
                own,
                opp,
                board.kings,
                board.black_to_move,
                iteration,
                -core.INFINITY,
                core.INFINITY,
                0,
                game.quiet_plies,
                work,
            )
        )
        aborted = bool(work[core.ABORT_AT])
        if work[core.BEST_AT]:  # a partial iteration counts once its first root move is finished
            origin, target, captured = (int(v) for v in work[core.BEST_AT : core.BEST_AT + 3])
            best = _as_move(board, origin, target, captured)
            score = value if not aborted else score
        if aborted:
            break
        done = iteration
        if abs(value) > core.MATE_BOUND:
            break
    return SearchResult(best, score, done, int(work[core.NODES_AT]), _principal_variation(board, best, work, done))


def noise_codes(game: Game) -> list[int]:
    """The codes (``1 + from * 32 + to``, 0-based squares) of the root moves, which ``analyse``'s
    ``noise`` is keyed by; moves sharing both squares share one code."""
    return sorted({1 + (m.from_square - 1) * 32 + m.to_square - 1 for m in game.board.legal_moves()})
