"""Exact values of small endgames: every position reachable from a start, solved backwards.

The search reads a dozen plies; the classic endings (First Position, Second Position) take
forty to seventy plies of technique, so no search proves them. With few pieces the whole game
graph reachable from a position is small enough to list: ``solve`` enumerates it (every legal
move of both sides, captures and crowning included) and then works backwards from the
positions where the side to move has no move (a loss), the way endgame databases are built
("retrograde analysis"):

- a position with a move to a lost position is won, one ply further from the end than the
  nearest such loss (the winner hurries);
- a position whose every move leads to a won position is lost, one ply further than the
  farthest of them (the loser holds out);
- whatever is never settled can be kept going forever: a draw.

To keep memory down, positions are solved in stages (see ``_stage``) from the end of the game
backwards, so only one stage's moves are held at a time. Second Position, the largest ending
kingme solves, reaches 137 million positions.

The values are the game-theoretic ones of the board alone: the draw rules that count history
(threefold repetition, 80 quiet king plies) are left out, as endgame databases do. A won line
that outlasted the no-progress count would be a draw in a game; the puzzle lines built on these
values are a few moves long, far from it.

>>> from kingme.rules import Board, Move
>>> table = solve(Board("W:WK19,K23:B12,K28"))  # First Position, White to play
>>> table.value(Board("W:WK19,K23:B12,K28"))
Value(outcome='win', plies=61)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numba import njit

from kingme.engine import movegen
from kingme.engine.bitops import popcount
from kingme.rules import Board, Move
from kingme.rules.errors import KingmeError

Outcome = Literal["win", "loss", "draw"]

#: The most pieces a position may have for ``solve`` (the reachable graph grows fast with more).
MAX_PIECES = 6
#: The most positions ``solve`` lists before giving up. Second Position reaches 137 million and
#: peaks at 4.7 GB (about 35 bytes a position, the largest stage's moves included).
MAX_POSITIONS = 200_000_000

_UNKNOWN, _WIN, _LOSS = 0, 1, 2
#: The opponent's outcome after a move, as the side that made it sees it.
_SEEN_BY_THE_MOVER: dict[Outcome, Outcome] = {"win": "loss", "loss": "win", "draw": "draw"}
_EMPTY = -1

#: The phases of ``solve``: listing every reachable position, indexing them (a hash table of
#: the final size and each one's stage), then solving them.
Phase = Literal["listed", "indexed", "solved"]
#: ``progress(phase, done, total)``: while listing, the positions whose moves are listed out of
#: those found so far (a total that grows); then, out of all of them, the positions indexed; then
#: the positions solved, and of the stage being solved the share whose moves have been examined.
Progress = Callable[[Phase, int, int], None]
#: Positions whose moves are listed per compiled call, so that ``progress`` hears of the listing
#: several times a second even when it runs for minutes.
_LISTING_BATCH = 1 << 18
#: Positions of a stage whose moves are examined per compiled call while solving, for the same reason.
_SOLVING_BATCH = 1 << 16
#: Positions entered in a hash table per compiled call (far cheaper each than listing or solving).
_INDEXING_BATCH = 1 << 20
#: ``_rehash``'s ``stages`` when the stages are not wanted.
_NO_STAGES = np.empty(0, dtype=np.int16)


class EndgameTooLarge(KingmeError):
    """The position has too many pieces, or reaches too many positions, to be solved exactly."""


@dataclass(frozen=True)
class Value:
    """A position's exact value for the side to move, and in how many plies the game ends with
    best play (the winner shortest, the loser longest); ``plies`` is 0 for a draw."""

    outcome: Outcome
    plies: int


@njit(cache=True)
def _key(own: int, opp: int, kings: int, black: bool) -> int:
    """A position as one integer: the occupied squares in bits 0-31, then two bits per piece in
    square order (the side to move's piece, a king) from bit 32, and the side to move in bit 62.
    Fourteen pieces would fit; ``MAX_PIECES`` allows far fewer."""
    occupied = own | opp
    descriptor = 0
    shift = 32
    rest = occupied
    while rest:
        lowest = rest & -rest
        if own & lowest:
            descriptor |= np.int64(1) << shift
        if kings & lowest:
            descriptor |= np.int64(2) << shift
        shift += 2
        rest ^= lowest
    return occupied | descriptor | (np.int64(black) << 62)


@njit(cache=True)
def _unpack(key: int) -> tuple[int, int, int, bool]:
    """``(own, opp, kings, black)`` of a key made by ``_key``."""
    occupied = key & 0xFFFFFFFF
    own = 0
    kings = 0
    shift = 32
    rest = occupied
    while rest:
        lowest = rest & -rest
        if (key >> shift) & 1:
            own |= lowest
        if (key >> shift) & 2:
            kings |= lowest
        shift += 2
        rest ^= lowest
    return own, occupied ^ own, kings, bool((key >> 62) & 1)


@njit(cache=True)
def _stage(key: int) -> int:
    """A number that every move either keeps (a king's step) or lowers (anything else).

    Pieces weigh most (a capture lowers it), then men (crowning), then the rows the men still
    have to go (a man's step); a king's step changes none of them. Solving stage by stage from
    the lowest, every move that leaves a stage lands on positions already solved.
    """
    own, opp, kings, black = _unpack(key)
    white_men = (opp if black else own) & ~kings
    black_men = (own if black else opp) & ~kings
    men = popcount(white_men | black_men)
    return 512 * popcount(own | opp) + 64 * men + movegen.rows_to_crown(black_men, white_men)


@njit(cache=True)
def _slot(hash_table: np.ndarray, keys: np.ndarray, key: int) -> int:
    """The slot of ``key`` in the open-addressing table, or the empty slot where it belongs."""
    mask = hash_table.size - 1
    slot = ((key * 0x9E3779B97F4A7C15) >> 29) & mask
    while True:
        index = hash_table[slot]
        if index == _EMPTY or keys[index] == key:
            return slot
        slot = (slot + 1) & mask


@njit(cache=True)
def _rehash(keys: np.ndarray, start: int, stop: int, hash_table: np.ndarray, stages: np.ndarray) -> None:
    """Enter the keys ``start`` to ``stop`` in the hash table, and their ``_stage`` in ``stages``
    unless it is empty (while the listing still grows, the stages are not wanted yet)."""
    for index in range(start, stop):
        hash_table[_slot(hash_table, keys, keys[index])] = index
        if stages.size:
            stages[index] = _stage(keys[index])


@njit(cache=True)
def _enumerate(
    keys: np.ndarray, hash_table: np.ndarray, start: int, stop: int, count: int, compulsory: bool, buf: np.ndarray
) -> tuple[int, int]:
    """Add the successors of positions ``start`` onwards (up to ``stop``) at the end of ``keys``
    until every listed position is expanded or the arrays are full; return ``(expanded, count)``."""
    i = start
    while i < count and i < stop:
        own, opp, kings, black = _unpack(keys[i])
        n = movegen.generate(own, opp, kings, black, compulsory, buf, movegen.MOVES_START)
        if count + n > keys.size or 2 * (count + n) > hash_table.size:
            break
        for m in range(n):
            at = movegen.MOVES_START + m * movegen.MOVE_SIZE
            new_own, new_opp, new_kings = movegen.play(own, opp, kings, black, buf[at], buf[at + 1], buf[at + 2])
            key = _key(new_own, new_opp, new_kings, not black)
            slot = _slot(hash_table, keys, key)
            if hash_table[slot] == _EMPTY:
                keys[count] = key
                hash_table[slot] = count
                count += 1
        i += 1
    return i, count


#: A queue item is one int64 so that the heap orders it by distance first: the plies from bit
#: 34 up, the outcome (``_WIN`` or ``_LOSS``) in bits 32-33, the position's local index below.
_ITEM_PLIES_SHIFT = 34
_ITEM_OUTCOME_SHIFT = 32


@njit(cache=True)
def _queue_item(plies: int, outcome: int, index: int) -> int:
    """Pack a queue item; the smallest ``plies`` comes out of the heap first."""
    return (np.int64(plies) << _ITEM_PLIES_SHIFT) | (np.int64(outcome) << _ITEM_OUTCOME_SHIFT) | index


@njit(cache=True)
def _queue_fields(item: int) -> tuple[int, int, int]:
    """``(plies, outcome, index)`` of an item made by ``_queue_item``."""
    return item >> _ITEM_PLIES_SHIFT, (item >> _ITEM_OUTCOME_SHIFT) & 3, item & 0xFFFFFFFF


@njit(cache=True)
def _heap_push(heap: np.ndarray, size: int, item: int) -> int:
    """Add ``item`` to the binary min-heap ``heap[:size]``; return the new size."""
    at = size
    heap[at] = item
    while at > 0:
        parent = (at - 1) // 2
        if heap[parent] <= heap[at]:
            break
        heap[parent], heap[at] = heap[at], heap[parent]
        at = parent
    return size + 1


@njit(cache=True)
def _heap_pop(heap: np.ndarray, size: int) -> tuple[int, int]:
    """Remove the smallest item of the heap; return it and the new size."""
    top = heap[0]
    size -= 1
    heap[0] = heap[size]
    at = 0
    while True:
        child = 2 * at + 1
        if child >= size:
            break
        if child + 1 < size and heap[child + 1] < heap[child]:
            child += 1
        if heap[at] <= heap[child]:
            break
        heap[at], heap[child] = heap[child], heap[at]
        at = child
    return top, size


@njit(cache=True)
def _stage_successors(
    keys: np.ndarray,
    hash_table: np.ndarray,
    stages: np.ndarray,
    index: int,
    compulsory: bool,
    buf: np.ndarray,
    out: np.ndarray,
) -> tuple[int, int]:
    """Write the indices of the positions after each legal move of position ``index`` (all
    listed already) into ``out``, those in its own stage first; return how many are in the stage
    and how many there are in all. Both passes over a stage (``_scan_moves``, ``_link_moves``)
    tell the moves that stay in it from those that leave it this one way."""
    own, opp, kings, black = _unpack(keys[index])
    n = movegen.generate(own, opp, kings, black, compulsory, buf, movegen.MOVES_START)
    within = 0
    leaving = n  # the moves out of the stage fill ``out`` from the end down
    for m in range(n):
        at = movegen.MOVES_START + m * movegen.MOVE_SIZE
        new_own, new_opp, new_kings = movegen.play(own, opp, kings, black, buf[at], buf[at + 1], buf[at + 2])
        j = hash_table[_slot(hash_table, keys, _key(new_own, new_opp, new_kings, not black))]
        if stages[j] == stages[index]:
            out[within] = j
            within += 1
        else:
            leaving -= 1
            out[leaving] = j
    return within, n


@njit(cache=True)
def _scan_moves(
    keys: np.ndarray,
    hash_table: np.ndarray,
    stages: np.ndarray,
    local: np.ndarray,
    outcome: np.ndarray,
    plies: np.ndarray,
    compulsory: bool,
    buf: np.ndarray,
    members: np.ndarray,
    start: int,
    stop: int,
    remaining: np.ndarray,
    inside: np.ndarray,
    nearest_loss: np.ndarray,
    farthest_win: np.ndarray,
    draw_outside: np.ndarray,
) -> None:
    """For the stage's positions ``start`` to ``stop``: take the values of the moves out of the
    stage, and count the moves that stay in it (at both ends)."""
    successors = np.empty(movegen.MAX_MOVES, dtype=np.int64)
    for k in range(start, stop):
        within, n = _stage_successors(keys, hash_table, stages, members[k], compulsory, buf, successors)
        remaining[k] += within
        for m in range(within):
            inside[local[successors[m]] + 1] += 1
        for m in range(within, n):
            j = successors[m]
            value, distance = outcome[j], plies[j]
            if value == _LOSS:
                if nearest_loss[k] < 0 or distance < nearest_loss[k]:
                    nearest_loss[k] = distance
            elif value == _WIN:
                farthest_win[k] = max(farthest_win[k], distance)
            else:
                draw_outside[k] = True


@njit(cache=True)
def _link_moves(
    keys: np.ndarray,
    hash_table: np.ndarray,
    stages: np.ndarray,
    local: np.ndarray,
    compulsory: bool,
    buf: np.ndarray,
    members: np.ndarray,
    start: int,
    stop: int,
    fill: np.ndarray,
    preds: np.ndarray,
) -> None:
    """For the stage's positions ``start`` to ``stop``: file each as a predecessor of the
    positions its moves inside the stage reach (``fill`` is where each one's list goes on)."""
    successors = np.empty(movegen.MAX_MOVES, dtype=np.int64)
    for k in range(start, stop):
        within, _ = _stage_successors(keys, hash_table, stages, members[k], compulsory, buf, successors)
        for m in range(within):
            target = local[successors[m]]
            preds[fill[target]] = k
            fill[target] += 1


@njit(cache=True)
def _settle(
    members: np.ndarray,
    remaining: np.ndarray,
    inside: np.ndarray,
    preds: np.ndarray,
    nearest_loss: np.ndarray,
    farthest_win: np.ndarray,
    draw_outside: np.ndarray,
    outcome: np.ndarray,
    plies: np.ndarray,
) -> None:
    """Settle the stage's wins and losses in order of distance with a priority queue, so a win
    takes its nearest loss and a loss waits for its farthest win."""
    size = members.size
    heap = np.empty(size + inside[size] + 1, dtype=np.int64)  # a position is queued at most once per edge
    queued = 0
    for k in range(size):
        if nearest_loss[k] >= 0:
            queued = _heap_push(heap, queued, _queue_item(nearest_loss[k] + 1, _WIN, k))
        elif remaining[k] == 0 and not draw_outside[k]:
            queued = _heap_push(heap, queued, _queue_item(farthest_win[k] + 1, _LOSS, k))
    settled = np.zeros(size, dtype=np.bool_)
    while queued:
        item, queued = _heap_pop(heap, queued)
        distance, value, k = _queue_fields(item)
        if settled[k]:
            continue
        settled[k] = True
        outcome[members[k]] = value
        plies[members[k]] = distance
        for e in range(inside[k], inside[k + 1]):
            before = preds[e]
            if settled[before]:
                continue
            if value == _LOSS:
                queued = _heap_push(heap, queued, _queue_item(distance + 1, _WIN, before))
                continue
            remaining[before] -= 1
            if remaining[before] == 0 and nearest_loss[before] < 0 and not draw_outside[before]:
                longest = max(distance, farthest_win[before]) + 1
                queued = _heap_push(heap, queued, _queue_item(longest, _LOSS, before))


def _solve_stage(
    keys: np.ndarray,
    hash_table: np.ndarray,
    stages: np.ndarray,
    members: np.ndarray,
    local: np.ndarray,
    outcome: np.ndarray,
    plies: np.ndarray,
    compulsory: bool,
    buf: np.ndarray,
    examined: Callable[[int], None],
) -> None:
    """Solve the positions ``members`` of one stage, every lower stage being solved already.

    Moves out of the stage give values at once; within it (kings' steps) the values are settled
    by ``_settle``, as in a plain breadth-first retrograde pass. The moves are generated twice,
    once to count and once to link them, in compiled batches of ``_SOLVING_BATCH`` positions, so
    that ``examined`` hears how many of the stage's positions have been through both several
    times a second: a six-piece stage takes minutes.
    """
    size = members.size
    local[members] = np.arange(size, dtype=np.int32)
    remaining = np.zeros(size, dtype=np.int32)  # successors inside the stage not yet won
    inside = np.zeros(size + 1, dtype=np.int64)  # predecessors inside the stage: counts, then offsets
    nearest_loss = np.full(size, -1, dtype=np.int32)  # plies of the nearest lost successor outside
    farthest_win = np.full(size, -1, dtype=np.int32)  # plies of the farthest won successor outside
    draw_outside = np.zeros(size, dtype=np.bool_)
    batches = [(start, min(start + _SOLVING_BATCH, size)) for start in range(0, size, _SOLVING_BATCH)]
    for start, stop in batches:
        _scan_moves(
            keys,
            hash_table,
            stages,
            local,
            outcome,
            plies,
            compulsory,
            buf,
            members,
            start,
            stop,
            remaining,
            inside,
            nearest_loss,
            farthest_win,
            draw_outside,
        )
        examined(stop // 2)
    np.cumsum(inside, out=inside)
    fill = inside[:-1].copy()
    preds = np.empty(inside[size], dtype=np.int32)
    for start, stop in batches:
        _link_moves(keys, hash_table, stages, local, compulsory, buf, members, start, stop, fill, preds)
        examined((size + stop) // 2)
    del fill
    _settle(members, remaining, inside, preds, nearest_loss, farthest_win, draw_outside, outcome, plies)


class Endgame:
    """The solved positions reachable from one start: ``value`` of any of them."""

    def __init__(self, keys: np.ndarray, hash_table: np.ndarray, outcome: np.ndarray, plies: np.ndarray) -> None:
        self._keys, self._hash_table, self._outcome, self._plies = keys, hash_table, outcome, plies

    def __len__(self) -> int:
        return int(self._outcome.size)

    def value(self, board: Board) -> Value:
        """The exact value of ``board`` for its side to move; ``KeyError`` if it cannot be
        reached from the solved start."""
        index = self._hash_table[_slot(self._hash_table, self._keys, _board_key(board))]
        if index == _EMPTY:
            raise KeyError(f"{board.fen()} cannot be reached from the solved position")
        outcome = int(self._outcome[index])
        if outcome == _UNKNOWN:
            return Value("draw", 0)
        return Value("win" if outcome == _WIN else "loss", int(self._plies[index]))

    def after(self, board: Board, move: Move) -> Value:
        """The value of playing ``move`` on ``board``, for the side that plays it: the opponent's
        loss in *n* plies is a win in *n* + 1, and the other way round."""
        position = board.copy()
        position.push(move)
        reply = self.value(position)
        outcome = _SEEN_BY_THE_MOVER[reply.outcome]
        return Value(outcome, reply.plies + 1 if outcome != "draw" else 0)


def _board_key(board: Board) -> int:
    own, opp = board.sides()
    return _key(own, opp, board.kings, board.black_to_move)


def _enter(
    keys: np.ndarray, count: int, hash_table: np.ndarray, report: Callable[[int], None], stages: np.ndarray = _NO_STAGES
) -> None:
    """``_rehash`` of the first ``count`` keys in batches of ``_INDEXING_BATCH``, with ``report``
    of how many are entered after each: at the largest, a pass over the keys takes many seconds."""
    for start in range(0, count, _INDEXING_BATCH):
        stop = min(start + _INDEXING_BATCH, count)
        _rehash(keys, start, stop, hash_table, stages)
        report(stop)


def _reachable(
    board: Board, max_positions: int, progress: Progress | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Keys of every position reachable from ``board`` (the start first), their hash table and
    their stages."""
    compulsory = board.variant.captures_compulsory
    capacity = 1 << 16
    keys = np.empty(capacity, dtype=np.int64)
    keys[0] = _board_key(board)
    hash_table = np.full(2 * capacity, _EMPTY, dtype=np.int32)
    _rehash(keys, 0, 1, hash_table, _NO_STAGES)
    buf = movegen.work_array(movegen.MOVES_START + movegen.MAX_MOVES * movegen.MOVE_SIZE)
    expanded, count = 0, 1

    def listing(_: int) -> None:
        if progress:
            progress("listed", expanded, count)

    def indexed(done: int) -> None:
        if progress:
            progress("indexed", done, count)

    while True:
        expanded, count = _enumerate(keys, hash_table, expanded, expanded + _LISTING_BATCH, count, compulsory, buf)
        if count > max_positions:
            raise EndgameTooLarge(f"{board.fen()} reaches more than {max_positions:,} positions")
        listing(expanded)
        if expanded == count:
            break
        if count + movegen.MAX_MOVES <= keys.size:
            continue  # the batch ended, not the room: _enumerate stops when a position might not fit
        capacity *= 2
        keys = np.concatenate((keys, np.empty(capacity - keys.size, dtype=np.int64)))
        del hash_table  # before the next one is allocated: at the largest they take gigabytes
        hash_table = np.full(2 * capacity, _EMPTY, dtype=np.int32)
        _enter(keys, count, hash_table, listing)
    del hash_table
    keys = keys[:count].copy()
    hash_table = np.full(_table_size(count), _EMPTY, dtype=np.int32)
    stages = np.empty(count, dtype=np.int16)
    _enter(keys, count, hash_table, indexed, stages)
    return keys, hash_table, stages


def _table_size(count: int) -> int:
    """A power of two at least one and a half times ``count``, so probes stay short."""
    return 1 << max(4, (3 * count // 2).bit_length())


def solve(board: Board, max_positions: int = MAX_POSITIONS, progress: Progress | None = None) -> Endgame:
    """Every position reachable from ``board``, solved exactly; ``EndgameTooLarge`` if it has
    more than ``MAX_PIECES`` pieces or reaches more than ``max_positions`` positions.

    Six pieces take minutes, so ``progress`` (see ``Progress``) is told how far the listing and
    then the solving have gone, after each batch of positions listed, indexed or examined."""
    pieces = board.piece_count()
    if pieces > MAX_PIECES:
        raise EndgameTooLarge(f"{pieces} pieces: exact solving takes at most {MAX_PIECES}")
    keys, hash_table, stages = _reachable(board, max_positions, progress)
    order = np.argsort(stages, kind="stable").astype(np.int32)
    bounds = np.flatnonzero(np.diff(stages[order])) + 1
    outcome = np.zeros(keys.size, dtype=np.int8)
    plies = np.zeros(keys.size, dtype=np.int16)
    local = np.empty(keys.size, dtype=np.int32)
    buf = movegen.work_array(movegen.MOVES_START + movegen.MAX_MOVES * movegen.MOVE_SIZE)
    compulsory = board.variant.captures_compulsory
    solved = reported = 0

    def examined(done: int) -> None:
        """Tell ``progress`` of ``done`` positions of the stage being solved, once per count."""
        nonlocal reported
        if progress and solved + done > reported:
            reported = solved + done
            progress("solved", reported, keys.size)

    for members in np.split(order, bounds):
        _solve_stage(keys, hash_table, stages, members, local, outcome, plies, compulsory, buf, examined)
        solved += members.size
    return Endgame(keys, hash_table, outcome, plies)
