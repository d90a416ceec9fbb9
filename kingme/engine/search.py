"""The compiled search: negamax alpha-beta with iterative deepening.

One ``int64`` work array ``W`` holds everything the search writes — move lists per ply, killer
moves, the history table, the keys of earlier positions (for repetition), the root moves'
noise, counters, the result and the transposition table — because numba pays for every array
passed to every call, and the recursive ``negamax`` is called once per node. It is not even
passed as an array: ``negamax`` takes its address and each node views it again (``addresses``),
and the endgame tables' addresses are words of it. The layout is the ``*_AT`` offsets below;
``new_work`` builds an array and ``search_root`` searches with it.

What the search knows:

- a depth limit and a node budget (never a clock, so the result is the same on every machine);
  the caller deepens iteratively, calling ``search_root`` once per depth (a cached numba
  function that calls a recursive one crashes when loaded from the cache, so the recursion is
  entered from Python only);
- a transposition table of two-entry buckets (one kept for the deeper search, one always
  replaced) storing bound, depth, score and best move (fields named below); principal
  variation search with killer and history move ordering;
- late move reductions: in a null-window node, quiet moves after the first three are searched a
  ply less (after the first five, two), and again at full depth if they beat alpha;
- futility pruning: a null-window node a ply or two from the leaves whose static evaluation is
  hopelessly below alpha searches only its first move and the moves that crown or threaten;
- truncation: a null-window node whose static evaluation is far outside its window is searched
  shallower (``_truncation``), so the depth goes where the score is close;
- enhanced transposition cutoffs: from ``ETC_DEPTH`` on, a node whose table already proves one
  of its moves good enough (``_transposition_cutoff``) is cut off before any is searched;
- quiescence: at depth 0 a side with a capture goes on capturing (every capture in American
  rules, where it is forced; captures or stand pat in casual), so forced sequences are read to
  the end; a position with a single legal move does not use up depth;
- draws: a position repeated on the path or in the game since the last capture or man move is
  a draw, and so is reaching 80 plies without progress;
- endgame databases: below the root, a position with few enough pieces for the loaded tables
  (``offsets`` and ``values`` from ``kingme.engine.egdb.load``; empty tables and
  ``W[ENDGAME_PIECES_AT] = 0`` when there are none) takes its exact value instead of a search;
- root noise: each root move's score gets a fixed offset (``W[NOISE_AT + move code]``, drawn by
  the caller from the game's seeded stream); the weaker levels use it to make human-looking
  mistakes. The offsets enter the alpha-beta windows exactly, so noisy scores are searched
  correctly. At ply 0 the best move so far is left in ``W[BEST_AT : BEST_AT + 3]`` (from, to, captured).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kingme.engine import pages
from kingme.engine.addresses import address_of, int64_array, prefetch, uint8_array
from kingme.engine.bitops import lowest_index, popcount
from kingme.engine.egdb.probe import UNKNOWN, is_loss, is_win, plies, probe, within_rule
from kingme.engine.evaluation import evaluate
from kingme.engine.movegen import (
    MAX_PLY,
    MOVE_SIZE,
    MOVES_END,
    capturers,
    generate,
    moves_base,
    ordinary_count,
    play,
)
from kingme.engine.network import SCRATCH_WORDS
from kingme.game import NO_PROGRESS_PLIES
from kingme.rules.bitboard import MASK32

INFINITY = 1_000_000
MATE = 30_000
#: Mate scores are above this; they are stored in the table relative to the node.
MATE_BOUND = MATE - 1_000
#: A won endgame-database position scores this less its plies from the root and its distance to
#: conversion: above any evaluation, below every mate score. Counting the plies to the table
#: position makes the winner reach it soonest and the loser put it off longest: without them a
#: loser whose every move was proven lost gave a king away at once as readily as it held out,
#: and Cake, which had not seen the win, took it (docs/engine.md, *Losing slowly*).
DATABASE_WIN = 20_000
#: Scores beyond this are decided (a table's or a search to the end's, counted in plies from the
#: root): the transposition table stores them relative to the node and gives them back relative
#: to the root of the search that finds them.
DECIDED_BOUND = DATABASE_WIN - 1_000
NOT_IN_DATABASE = -INFINITY
#: A draw after this many plies without a capture or a man's move (the game's rule).
NO_PROGRESS = NO_PROGRESS_PLIES
#: Keys of game positions before the root that repetition may look back on.
MAX_GAME_KEYS = NO_PROGRESS + 4

EXACT, LOWER, UPPER = 0, 1, 2

# A transposition-table entry is two words: the position's 64-bit key and a data word with these
# fields. Scores fit 16 bits with a bias (mates are 30,000 at most), depths 8, the bound 2, and
# the best move's code (1 + from * 32 + to) 11.
SCORE_SHIFT, SCORE_MASK, SCORE_BIAS = 0, (1 << 16) - 1, 1 << 15
DEPTH_SHIFT, DEPTH_MASK = 16, (1 << 8) - 1
FLAG_SHIFT, FLAG_MASK = 24, 3
MOVE_SHIFT, MOVE_MASK = 26, (1 << 11) - 1
#: Late move reductions: in a scout node, quiet moves from the fourth on (the transposition
#: table's, the killers' and the best by history come first) are searched a ply less when
#: at least this much depth is left, and again at full depth if they beat alpha. Cake reduces
#: after three moves at any depth; a reduced search of depth 1 would lose the reply's captures.
LATE_MOVE = 3
LATE_MOVE_DEPTH = 2
#: Quiet moves from the sixth on are searched two plies less when the reduced search keeps at
#: least a ply (Scan reduces two plies from the fifth move; Cake's 2017 trial of deeper
#: reductions lost). With futility pruning: 20.0 against 19 median plies at master's budget,
#: +7 ± 21 at 250,000 nodes over all 157 ballots (docs/engine.md).
LATER_MOVE = 5
LATER_MOVE_DEPTH = 3
#: ... and only with more pieces than this on the board: in the endgame every king move counts
#: (two kings took 47 plies to catch a lone king with reductions there, 19 without).
LATE_MOVE_PIECES = 8
#: Truncation (Cake's eval-window truncation, in whole plies): a scout node whose static
#: evaluation lies outside its window is searched one ply less for every ``TRUNCATION_STEP`` of
#: that distance, at most ``TRUNCATION_MOST`` plies and never below one ply. Far from the window
#: the result is rarely in doubt, so the depth saved there goes where the score is close. Cake
#: truncates a quarter ply per 16 points beyond 20 (a man is about 100), up to 2.5 plies a
#: node; not in capture positions, which the search reads in full, nor here in the endgame.
TRUNCATION_STEP = 64
TRUNCATION_MOST = 2
#: Enhanced transposition cutoffs from this depth on: before searching a node's moves, the table
#: is asked about the position after each; one already proved bad enough for the opponent cuts
#: the node off at once. Near the leaves the probes cost more than they save (Cake: > 2 plies).
ETC_DEPTH = 3
#: Captures are tried in order of what they take: each piece counts ``CAPTURED_PIECE``, each king
#: ``CAPTURED_KING`` more (3.8% fewer nodes to depth 16 than ordering by the captured squares'
#: bits as a number; +14 ± 21 at 250,000 nodes over all 157 ballots, docs/engine.md).
CAPTURED_PIECE = 64
CAPTURED_KING = 32
#: Threats at the horizon (after Cake): a quiet leaf whose opponent could capture if it were its
#: move is not scored as it stands when its static evaluation lies between ``THREAT_BELOW`` under
#: alpha and ``THREAT_ABOVE`` over beta; the side to move gets one more ply, and the replies
#: only capture (depth -1: no second extension on the path until the next ply of real depth).
THREAT_BELOW = 60
THREAT_ABOVE = 200
#: Futility pruning (the issue's "pruning of hopeless quiet moves near the leaves"): in a scout
#: node with at most ``FUTILITY_DEPTH`` plies left, no capture to make and a static evaluation
#: still ``FUTILITY_MARGIN`` a ply left below alpha, the quiet moves after the first are not
#: searched, except those that crown or threaten a capture — the moves that can change the
#: score by more than the margin; a man is 100. The node fails low with that bound. Nodes to
#: complete depth 16 on the bench positions: 16% fewer with depth 1 only (10% with a margin of
#: 150), 23% fewer up to depth 2, no fewer up to 3; even at 250,000 nodes (docs/engine.md).
FUTILITY_DEPTH = 2
FUTILITY_MARGIN = 100

# Header fields.
NODES_AT = MOVES_END
BUDGET_AT = NODES_AT + 1
ABORT_AT = NODES_AT + 2
COMPULSORY_AT = NODES_AT + 3
FULL_EVAL_AT = NODES_AT + 4
QUIESCENCE_AT = NODES_AT + 5
TT_MASK_AT = NODES_AT + 6
GAME_KEYS_AT = NODES_AT + 7
BEST_AT = NODES_AT + 8
#: Positions with at most this many pieces are looked up in the endgame tables (0: none loaded).
ENDGAME_PIECES_AT = NODES_AT + 11
#: The work array's length, and the endgame tables' addresses and lengths (see ``search_root``).
SIZE_AT = NODES_AT + 12
OFFSETS_AT = NODES_AT + 13
VALUES_AT = NODES_AT + 15
# Tables.
KILLERS_AT = NODES_AT + 17
HISTORY_AT = KILLERS_AT + 2 * MAX_PLY
KEYS_AT = HISTORY_AT + 32 * 32
NOISE_AT = KEYS_AT + MAX_GAME_KEYS + MAX_PLY + 1
NETWORK_AT = NOISE_AT + 32 * 32 + 1
TT_AT = NETWORK_AT + SCRATCH_WORDS

_MIX1 = 0xBF58476D1CE4E5B9 - (1 << 64)
_MIX2 = 0x94D049BB133111EB - (1 << 64)
_LOW35 = (1 << 35) - 1


@njit(cache=True)
def _mix(z: int) -> int:
    z = z * _MIX1
    z ^= (z >> 29) & _LOW35
    z = z * _MIX2
    z ^= (z >> 32) & MASK32
    return z


@njit(cache=True)
def position_key(own: int, opp: int, kings: int, black: bool) -> int:
    """A 64-bit hash of the placement and the side to move (the repetition identity)."""
    black_pieces, white_pieces = (own, opp) if black else (opp, own)
    return _mix(black_pieces | (white_pieces << 32)) ^ _mix(kings | (np.int64(2) if black else np.int64(1)) << 32)


@njit(cache=True)
def move_code(origin: int, target: int) -> int:
    """1 + from-square * 32 + to-square (0 means "no move")."""
    return 1 + lowest_index(origin) * 32 + lowest_index(target)


@njit(cache=True)
def _pack(score: int, depth: int, flag: int, code: int) -> int:
    """A table entry's data word: score, depth, bound and best move in the fields below."""
    return (
        ((score + SCORE_BIAS) << SCORE_SHIFT)
        | (min(depth, DEPTH_MASK) << DEPTH_SHIFT)
        | (flag << FLAG_SHIFT)
        | (code << MOVE_SHIFT)
    )


@njit(cache=True)
def _score_of(data: int) -> int:
    return ((data >> SCORE_SHIFT) & SCORE_MASK) - SCORE_BIAS


@njit(cache=True)
def _depth_of(data: int) -> int:
    return (data >> DEPTH_SHIFT) & DEPTH_MASK


@njit(cache=True)
def _flag_of(data: int) -> int:
    return (data >> FLAG_SHIFT) & FLAG_MASK


@njit(cache=True)
def _move_of(data: int) -> int:
    return (data >> MOVE_SHIFT) & MOVE_MASK


@njit(cache=True)
def _bucket(W: np.ndarray, key: int) -> int:
    """Where ``key``'s bucket starts: two entries (key, data), the first kept for the deeper
    search, the second always replaced."""
    return TT_AT + 4 * (key & W[TT_MASK_AT])


@njit(cache=True)
def _scratch(W: np.ndarray) -> np.ndarray:
    """The words lent to the evaluation network, as the int16 it works in."""
    return W[NETWORK_AT : NETWORK_AT + SCRATCH_WORDS].view(np.int16)


@njit(cache=True)
def _work_at(address: int) -> np.ndarray:
    """The work array whose numbers start at ``address`` (its length is its ``SIZE_AT`` word)."""
    return int64_array(address, int64_array(address, SIZE_AT + 1)[SIZE_AT])


@njit(cache=True)
def _lent(W: np.ndarray, at: int) -> np.ndarray:
    """The int64 array whose address and length ``search_root`` lent in ``W[at : at + 2]``."""
    return int64_array(W[at], W[at + 1])


@njit(cache=True)
def _lent_bytes(W: np.ndarray, at: int) -> np.ndarray:
    """The byte array whose address and length ``search_root`` lent in ``W[at : at + 2]``."""
    return uint8_array(W[at], W[at + 1])


@njit(cache=True)
def _fetch_bucket(W: np.ndarray, address: int, key: int) -> None:
    """Start bringing ``key``'s bucket into the caches (``W`` lies at ``address``), so that
    a probe of it soon after waits less."""
    prefetch(address + pages.WORD * _bucket(W, key))


@njit(cache=True)
def _find(W: np.ndarray, key: int) -> int:
    """The slot holding ``key``, or -1."""
    bucket = _bucket(W, key)
    if W[bucket] == key:
        return bucket
    if W[bucket + 2] == key:
        return bucket + 2
    return -1


@njit(cache=True)
def _store(W: np.ndarray, key: int, depth: int, flag: int, score: int, code: int, ply: int) -> None:
    if score > DECIDED_BOUND:
        score += ply
    elif score < -DECIDED_BOUND:
        score -= ply
    data = _pack(score, max(depth, 0), flag, code)
    bucket = _bucket(W, key)
    if W[bucket] == key or depth >= _depth_of(W[bucket + 1]):
        if W[bucket] != key:  # the shallower entry moves to the always-replaced slot
            W[bucket + 2], W[bucket + 3] = W[bucket], W[bucket + 1]
        W[bucket], W[bucket + 1] = key, data
    else:
        W[bucket + 2], W[bucket + 3] = key, data


@njit(cache=True)
def _stored_score(data: int, ply: int) -> int:
    """The score of a table entry as seen from a node at ``ply``: decided scores are stored
    relative to the node that stored them (see ``_store``) and come back relative to the root."""
    score = _score_of(data)
    if score > DECIDED_BOUND:
        return score - ply
    if score < -DECIDED_BOUND:
        return score + ply
    return score


@njit(cache=True)
def _quiet_after(kings: int, origin: int, captured: int, quiet: int) -> int:
    """The plies without a capture or a man's move after a move from ``origin`` (the 80-ply
    rule's count): back to 0 after a capture or a man's move, one more after a king's."""
    return 0 if captured or not kings & origin else quiet + 1


@njit(cache=True)
def table_move(W: np.ndarray, key: int) -> int:
    """The best-move code stored for ``key``, or 0."""
    slot = _find(W, key)
    if slot < 0:
        return 0
    return _move_of(W[slot + 1])


@njit(cache=True)
def _order(W: np.ndarray, base: int, n: int, ply: int, tt_code: int, kings: int) -> None:
    killer1 = W[KILLERS_AT + 2 * ply]
    killer2 = W[KILLERS_AT + 2 * ply + 1]
    for i in range(n):
        m = base + i * MOVE_SIZE
        code = move_code(W[m], W[m + 1])
        if code == tt_code:
            score = 1 << 40
        elif W[m + 2]:
            # captures first: those taking more pieces, then more kings, first
            score = (1 << 36) + CAPTURED_PIECE * popcount(W[m + 2]) + CAPTURED_KING * popcount(W[m + 2] & kings)
        elif code == killer1:
            score = 1 << 35
        elif code == killer2:
            score = 1 << 34
        else:
            score = W[HISTORY_AT + code - 1]
        W[m + 3] = score


@njit(cache=True)
def _pick(W: np.ndarray, base: int, k: int, n: int) -> None:
    """Swap the best-ordered move among k..n-1 into place k."""
    best = k
    best_score = W[base + k * MOVE_SIZE + 3]
    for i in range(k + 1, n):
        score = W[base + i * MOVE_SIZE + 3]
        if score > best_score:
            best, best_score = i, score
    if best != k:
        a, b = base + k * MOVE_SIZE, base + best * MOVE_SIZE
        for f in range(MOVE_SIZE):
            W[a + f], W[b + f] = W[b + f], W[a + f]


@njit(cache=True)
def _repeated(W: np.ndarray, key: int, position: int, quiet: int) -> bool:
    i = position - 2
    while i >= 0 and i >= position - quiet:
        if W[KEYS_AT + i] == key:
            return True
        i -= 2
    return False


@njit(cache=True)  # entered through search_root only, which checks the arrays behind ``address``
def negamax(
    own: int,
    opp: int,
    kings: int,
    black: bool,
    depth: int,
    alpha: int,
    beta: int,
    ply: int,
    quiet: int,
    address: int,
) -> int:
    W = _work_at(address)
    if W[NODES_AT] >= W[BUDGET_AT]:  # also stops a re-search begun by a caller that was aborted
        W[ABORT_AT] = 1
        return 0
    W[NODES_AT] += 1
    key = position_key(own, opp, kings, black)
    position = W[GAME_KEYS_AT] + ply
    W[KEYS_AT + position] = key
    compulsory = W[COMPULSORY_AT] != 0
    full = W[FULL_EVAL_AT] != 0
    jumping = capturers(own, opp, kings, black)
    if not jumping and ordinary_count(own, kings, MASK32 ^ (own | opp), black) == 0:
        return -(MATE - ply)
    if ply > 0 and (quiet >= NO_PROGRESS or _repeated(W, key, position, quiet)):
        return 0
    if ply > 0 and popcount(own | opp) <= W[ENDGAME_PIECES_AT]:
        known = _endgame_score(_lent(W, OFFSETS_AT), _lent_bytes(W, VALUES_AT), own, opp, kings, black, quiet, ply)
        if known != NOT_IN_DATABASE:
            return known
    if ply >= MAX_PLY - 2:
        return evaluate(own, opp, kings, black, full, _scratch(W))
    base = moves_base(ply)
    best = -INFINITY
    threat = False
    if depth <= 0:
        if not jumping or W[QUIESCENCE_AT] == 0:
            static = evaluate(own, opp, kings, black, full, _scratch(W))
            if (
                depth < 0
                or W[QUIESCENCE_AT] == 0
                or not alpha - THREAT_BELOW < static < beta + THREAT_ABOVE
                or capturers(opp, own, kings, not black) == 0
            ):
                return static
            # The opponent threatens a capture: the side to move gets one more ply to meet it.
            threat = True
            depth = 1
        elif not compulsory:  # casual quiescence may stand pat instead of capturing
            best = evaluate(own, opp, kings, black, full, _scratch(W))
            if best >= beta:
                return best
            alpha = max(alpha, best)

    slot = _find(W, key)
    tt_code = 0
    if slot >= 0:
        data = W[slot + 1]
        tt_code = _move_of(data)
        stored = _stored_score(data, ply)
        if _depth_of(data) >= depth:
            flag = _flag_of(data)
            if flag == EXACT or (flag == LOWER and stored >= beta) or (flag == UPPER and stored <= alpha):
                return stored

    # Generated only now: a node the table answers needs no moves.
    n = generate(own, opp, kings, black, compulsory, W, base)
    probe_children = ply > 0 and depth >= ETC_DEPTH
    if probe_children and _transposition_cutoff(W, address, base, n, own, opp, kings, black, depth, beta, ply, quiet):
        return beta
    _order(W, base, n, ply, tt_code, kings)
    original_alpha = alpha
    scout = beta - alpha == 1  # a null-window node: off the principal variation
    crowded = popcount(own | opp) > LATE_MOVE_PIECES
    futility = -INFINITY  # the bound a futile node's pruned moves fail low with (none: -INFINITY)
    if scout and crowded and depth > 0 and n > 1 and not jumping and -DATABASE_WIN < alpha < DATABASE_WIN:
        static = evaluate(own, opp, kings, black, full, _scratch(W))
        if depth > 1:
            depth -= _truncation(static, alpha, beta, depth)
        futility = _futility(static, alpha, depth)
    best_code = 0
    child_depth = -1 if threat else (depth - 1 if depth > 0 and n > 1 else depth)
    for k in range(n):
        _pick(W, base, k, n)
        m = base + k * MOVE_SIZE
        origin, target, captured = W[m], W[m + 1], W[m + 2]
        if depth <= 0 and not captured:
            continue  # casual quiescence: only captures
        code = move_code(origin, target)
        offset = W[NOISE_AT + code] if ply == 0 else 0
        low, high = alpha - offset, beta - offset
        new_own, new_opp, new_kings = play(own, opp, kings, black, origin, target, captured)
        child_quiet = _quiet_after(kings, origin, captured, quiet)
        crowned = popcount(new_kings) != popcount(kings)
        # ``play`` answers from the replier's side: the mover's pieces are ``new_opp``.
        if k > 0 and futility > -INFINITY and not _forcing(new_opp, new_own, new_kings, crowned, black):
            best = max(best, futility)
            continue  # a futile node's quiet move that neither crowns nor threatens: not searched
        reduction = 0
        late = k > 0 and scout and k >= LATE_MOVE and child_depth >= LATE_MOVE_DEPTH and not captured and crowded
        if late and not crowned:
            # a late quiet move (not crowning) of a scout node: searched a ply less, a later two
            reduction = 2 if k >= LATER_MOVE and child_depth >= LATER_MOVE_DEPTH else 1
        # The first move gets the whole window; the others a null window, widened (and a reduced
        # one deepened first) only when the score lands where it could change the result.
        searched_depth, whole_window = child_depth - reduction, k == 0
        if searched_depth > 0:  # the reply will probe the table: its bucket is fetched meanwhile
            _fetch_bucket(W, address, position_key(new_own, new_opp, new_kings, not black))
        while True:
            score = -negamax(
                new_own,
                new_opp,
                new_kings,
                not black,
                searched_depth,
                -high if whole_window else -low - 1,
                -low,
                ply + 1,
                child_quiet,
                address,
            )
            if W[ABORT_AT]:
                return 0
            if searched_depth < child_depth and score > low:
                searched_depth = child_depth
            elif not whole_window and low < score < high:
                whole_window = True
            else:
                break
        score += offset
        if score > best:
            best = score
            best_code = code
            if ply == 0:
                W[BEST_AT] = origin
                W[BEST_AT + 1] = target
                W[BEST_AT + 2] = captured
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    if not captured:
                        _remember_cutoff(W, best_code, ply, depth)
                    break
    flag = UPPER if best <= original_alpha else (LOWER if best >= beta else EXACT)
    _store(W, key, depth, flag, best, best_code, ply)
    return best


@njit(cache=True)
def _transposition_cutoff(
    W: np.ndarray,
    address: int,
    base: int,
    n: int,
    own: int,
    opp: int,
    kings: int,
    black: bool,
    depth: int,
    beta: int,
    ply: int,
    quiet: int,
) -> bool:
    """Whether the table already proves one of the ``n`` moves at ``base`` scores at least
    ``beta``: the position after it holds an upper bound of at most ``-beta`` for the opponent,
    searched deep enough, and is not a draw by repetition or the 80-ply rule on this path."""
    position = W[GAME_KEYS_AT] + ply
    # Every key first, its bucket fetched and the key kept in the move's ordering field (which
    # ``_order`` fills later), so the probes' cache misses overlap instead of following each other.
    for k in range(n):
        m = base + k * MOVE_SIZE
        new_own, new_opp, new_kings = play(own, opp, kings, black, W[m], W[m + 1], W[m + 2])
        W[m + 3] = position_key(new_own, new_opp, new_kings, not black)
        _fetch_bucket(W, address, W[m + 3])
    for k in range(n):
        m = base + k * MOVE_SIZE
        origin, captured, key = W[m], W[m + 2], W[m + 3]
        child_quiet = _quiet_after(kings, origin, captured, quiet)
        slot = _find(W, key)
        if slot < 0:
            continue
        data = W[slot + 1]
        if _depth_of(data) < depth - 1 or _flag_of(data) == LOWER:
            continue
        stored = _stored_score(data, ply + 1)
        if -stored >= beta and child_quiet < NO_PROGRESS and not _repeated(W, key, position + 1, child_quiet):
            return True
    return False


@njit(cache=True)
def _truncation(static: int, alpha: int, beta: int, depth: int) -> int:
    """The plies a scout node of ``depth`` gives up because ``static`` is far from its window."""
    distance = max(static - beta, alpha - static, 0)
    return min(distance // TRUNCATION_STEP, TRUNCATION_MOST, depth - 1)


@njit(cache=True)
def _futility(static: int, alpha: int, depth: int) -> int:
    """The score a scout node of ``depth`` whose static evaluation is ``static`` fails low with
    if its quiet moves are futile (``FUTILITY_MARGIN``), or ``-INFINITY`` if they are not."""
    bound = static + FUTILITY_MARGIN * depth
    return bound if depth <= FUTILITY_DEPTH and bound <= alpha else -INFINITY


@njit(cache=True)
def _forcing(own: int, opp: int, kings: int, crowned: bool, black: bool) -> bool:
    """Whether the quiet move that left ``own``, ``opp`` and ``kings`` (``black`` moved) can
    change the score by more than futility's margin: it ``crowned`` a man, or it threatens a
    capture."""
    return crowned or capturers(own, opp, kings, black) != 0


@njit(cache=True)
def _endgame_score(
    offsets: np.ndarray, values: np.ndarray, own: int, opp: int, kings: int, black: bool, quiet: int, ply: int
) -> int:
    """The endgame database's verdict as a score for the side to move at ``ply``: a win
    converting in ``n`` plies is ``DATABASE_WIN - ply - n`` (so the search hurries to the tables
    and to the conversion, and the loser holds out), a draw 0 — also a win that ``quiet`` plies of
    the 80-ply count already played leave no time to convert (``within_rule``);
    ``NOT_IN_DATABASE`` when the tables do not have the position."""
    black_bits, white_bits = (own, opp) if black else (opp, own)
    value = within_rule(probe(offsets, values, black_bits, white_bits, kings, black), quiet)
    if value == UNKNOWN:
        return NOT_IN_DATABASE
    return table_score(value, ply)


@njit(cache=True)
def table_score(value: int, ply: int) -> int:
    """A known table value (the 80-ply count applied) as a score for the side to move at ``ply``:
    a win converting in ``n`` plies is ``DATABASE_WIN - ply - n``, a loss its negation, a draw 0.
    The root's table move (``analysis``) is scored by it at ply 0."""
    if is_win(value):
        return DATABASE_WIN - ply - plies(value)
    if is_loss(value):
        return ply + plies(value) - DATABASE_WIN
    return 0


@njit(cache=True)
def _remember_cutoff(W: np.ndarray, code: int, ply: int, depth: int) -> None:
    killer = KILLERS_AT + 2 * ply
    if W[killer] != code:
        W[killer + 1] = W[killer]
        W[killer] = code
    W[HISTORY_AT + code - 1] += depth * depth
    if W[HISTORY_AT + code - 1] > (1 << 30):
        for i in range(32 * 32):
            W[HISTORY_AT + i] //= 2


def new_work(table_bits: int) -> np.ndarray:
    """A zeroed work array with a transposition table of ``2 ** table_bits`` entries, the table
    aligned and in huge pages where the system allows (``pages``)."""
    work = pages.zeroed_words(TT_AT + 2 * (1 << table_bits), TT_AT)
    work[TT_MASK_AT] = (1 << max(table_bits - 1, 0)) - 1  # buckets of two entries
    work[SIZE_AT] = len(work)
    return work


def search_root(
    own: int,
    opp: int,
    kings: int,
    black: bool,
    depth: int,
    quiet: int,
    work: np.ndarray,
    offsets: np.ndarray,
    values: np.ndarray,
) -> int:
    """One iteration of ``depth`` plies from the root over the whole window: ``negamax`` with
    ``work`` (from ``new_work``) and the endgame tables (``offsets`` and ``values``) lent by
    address for the call (see ``addresses``)."""
    address = address_of(work, np.int64)
    if len(work) <= TT_AT or len(work) != work[SIZE_AT]:
        raise ValueError("the work array does not come from new_work")
    work[OFFSETS_AT : OFFSETS_AT + 2] = address_of(offsets, np.int64), len(offsets)
    work[VALUES_AT : VALUES_AT + 2] = address_of(values, np.uint8), len(values)
    return int(negamax(own, opp, kings, black, depth, -INFINITY, INFINITY, 0, quiet, address))
