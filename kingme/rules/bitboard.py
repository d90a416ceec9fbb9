"""Move generation on 32-bit bitboards held in plain Python ints.

This is the hot core of the rules: everything else (``Board``, ``Game``, notation, the server)
asks it which moves are legal, so it is written for speed first and kept small enough to read
in one sitting.

Layout
------
Bit ``i`` stands for square ``i + 1`` in standard checkers numbering. Rows are counted from
Black's side: row 0 holds squares 1-4, row 7 holds squares 29-32. On even rows the dark
squares are columns 1, 3, 5, 7; on odd rows columns 0, 2, 4, 6. Black moves "down" (towards
higher numbers), White "up". One diagonal step is a shift by 3, 4 or 5 depending on the row's
parity, and one jump is always a shift by 7 or 9.

A *raw move* is the tuple ``(from_bit, to_bit, captured_mask, path)`` where ``path`` is
``None`` for an ordinary move (it is just the two squares) and a tuple of 0-based square
indices for a capture. Keeping ordinary moves path-free keeps the perft loop cheap.
"""

from __future__ import annotations

#: The dark squares, numbered 1 to ``SQUARES`` in text; bit ``n - 1`` is square ``n``.
SQUARES = 32
MASK32 = (1 << SQUARES) - 1

#: ``(from_bit, to_bit, captured_mask, path)``: see *raw move* above.
RawMove = tuple[int, int, int, tuple[int, ...] | None]

#: Direction vectors as (row step, column step). Black men use the first two, White men the
#: last two, kings all four.
DOWN_DIRECTIONS = ((1, -1), (1, 1))
UP_DIRECTIONS = ((-1, -1), (-1, 1))


def _index(row: int, col: int) -> int:
    """The 0-based square index at (row, col), or -1 off the board or on a light square."""
    if 0 <= row < 8 and 0 <= col < 8 and (row + col) % 2 == 1:
        return row * 4 + col // 2
    return -1


def row_col(index: int) -> tuple[int, int]:
    """(row, column) of a 0-based square index; row 0 is Black's back rank."""
    row = index // 4
    return row, 2 * (index % 4) + (1 if row % 2 == 0 else 0)


def _bits(indices: object) -> int:
    mask = 0
    for i in indices:  # type: ignore[attr-defined]
        mask |= 1 << i
    return mask


EVEN_ROWS = _bits(i for i in range(SQUARES) if (i // 4) % 2 == 0)
ODD_ROWS = MASK32 ^ EVEN_ROWS
#: Squares where a man of each colour is crowned: the far row from where it starts.
BLACK_CROWN = _bits(range(28, 32))
WHITE_CROWN = _bits(range(0, 4))


def crown_row(black: bool) -> int:
    """The squares where a man of Black (``black``) or White is crowned; every other module
    that needs the crowning row asks here (or reads the two constants above)."""
    return BLACK_CROWN if black else WHITE_CROWN


def _step_mask(directions: tuple[tuple[int, int], ...], shift: int) -> int:
    """Squares whose neighbour in one of ``directions`` is ``shift`` indices away."""
    mask = 0
    for i in range(SQUARES):
        r, c = row_col(i)
        for dr, dc in directions:
            j = _index(r + dr, c + dc)
            if j >= 0 and abs(j - i) == shift:
                mask |= 1 << i
    return mask


# Ordinary steps: Black shifts left (<<), White shifts right (>>).
DOWN3, DOWN4, DOWN5 = (_step_mask(DOWN_DIRECTIONS, s) for s in (3, 4, 5))
UP3, UP4, UP5 = (_step_mask(UP_DIRECTIONS, s) for s in (3, 4, 5))


def _jump_mask(directions: tuple[tuple[int, int], ...], shift: int) -> int:
    """Squares from which a jump in one of ``directions`` lands ``shift`` indices away."""
    mask = 0
    for i in range(SQUARES):
        r, c = row_col(i)
        for dr, dc in directions:
            j = _index(r + 2 * dr, c + 2 * dc)
            if j >= 0 and abs(j - i) == shift:
                mask |= 1 << i
    return mask


DOWN_JUMP7, DOWN_JUMP9 = _jump_mask(DOWN_DIRECTIONS, 7), _jump_mask(DOWN_DIRECTIONS, 9)
UP_JUMP7, UP_JUMP9 = _jump_mask(UP_DIRECTIONS, 7), _jump_mask(UP_DIRECTIONS, 9)


def _jump_table(directions: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """For every square, its possible jumps as (over_bit, land_bit, land_index)."""
    table = []
    for i in range(SQUARES):
        r, c = row_col(i)
        jumps = []
        for dr, dc in directions:
            over, land = _index(r + dr, c + dc), _index(r + 2 * dr, c + 2 * dc)
            if land >= 0:
                jumps.append((1 << over, 1 << land, land))
        table.append(tuple(jumps))
    return tuple(table)


BLACK_MAN_JUMPS = _jump_table(DOWN_DIRECTIONS)
WHITE_MAN_JUMPS = _jump_table(UP_DIRECTIONS)
KING_JUMPS = _jump_table(DOWN_DIRECTIONS + UP_DIRECTIONS)


def _down_jumpers(movers: int, opp: int, empty: int) -> int:
    """Pieces in ``movers`` with a jump towards higher squares (Black's forward)."""
    # Over-square of a jump by 7: index+4 on even rows, +3 on odd rows; by 9: +5 / +4.
    return (movers & DOWN_JUMP7 & (empty >> 7) & (((opp >> 4) & EVEN_ROWS) | ((opp >> 3) & ODD_ROWS))) | (
        movers & DOWN_JUMP9 & (empty >> 9) & (((opp >> 5) & EVEN_ROWS) | ((opp >> 4) & ODD_ROWS))
    )


def _up_jumpers(movers: int, opp: int, empty: int) -> int:
    """Pieces in ``movers`` with a jump towards lower squares (White's forward)."""
    # Over-square of a jump by 7: index-3 on even rows, -4 on odd rows; by 9: -4 / -5.
    return (movers & UP_JUMP7 & (empty << 7) & (((opp << 3) & EVEN_ROWS) | ((opp << 4) & ODD_ROWS))) | (
        movers & UP_JUMP9 & (empty << 9) & (((opp << 4) & EVEN_ROWS) | ((opp << 5) & ODD_ROWS))
    )


def jumpers(own: int, opp: int, kings: int, black: bool) -> int:
    """The side to move's pieces that have at least one capture."""
    empty = MASK32 ^ (own | opp)
    down, up = (own, own & kings) if black else (own & kings, own)
    # Most positions have no kings: skip the direction no piece can jump in.
    return (_down_jumpers(down, opp, empty) if down else 0) | (_up_jumpers(up, opp, empty) if up else 0)


def _simple_moves(own: int, kings: int, empty: int, black: bool) -> list[RawMove]:
    moves: list[RawMove] = []
    append = moves.append
    down = own if black else own & kings
    up = own & kings if black else own
    if down:
        for shift, mask in ((3, DOWN3), (4, DOWN4), (5, DOWN5)):
            targets = ((down & mask) << shift) & empty
            while targets:
                to = targets & -targets
                targets ^= to
                append((to >> shift, to, 0, None))
    if up:
        for shift, mask in ((3, UP3), (4, UP4), (5, UP5)):
            targets = ((up & mask) >> shift) & empty
            while targets:
                to = targets & -targets
                targets ^= to
                append((to << shift, to, 0, None))
    return moves


def _capture_moves(own: int, opp: int, kings: int, black: bool, starters: int, stop_anywhere: bool) -> list[RawMove]:
    """Every capture route of the pieces in ``starters``.

    With ``stop_anywhere`` (the casual variant) every prefix of a route is a move of its own;
    otherwise a route must go on while the piece can jump. A man that reaches the crowning row
    stops there. Captured pieces leave the board at once, and the moving piece leaves its start
    square, so a king may pass through or end on the square it started from.
    """
    moves: list[RawMove] = []
    crown = crown_row(black)
    man_table = BLACK_MAN_JUMPS if black else WHITE_MAN_JUMPS
    while starters:
        start_bit = starters & -starters
        starters ^= start_bit
        start = start_bit.bit_length() - 1
        empty = MASK32 ^ ((own ^ start_bit) | opp)
        if kings & start_bit:
            _extend(moves, start_bit, start, 0, (start,), opp, empty, KING_JUMPS, 0, stop_anywhere)
        else:
            _extend(moves, start_bit, start, 0, (start,), opp, empty, man_table, crown, stop_anywhere)
    return moves


def _extend(
    moves: list[RawMove],
    start_bit: int,
    square: int,
    captured: int,
    path: tuple[int, ...],
    opp: int,
    empty: int,
    table: tuple[tuple[tuple[int, int, int], ...], ...],
    stop: int,
    stop_anywhere: bool,
) -> None:
    """Append every route that continues ``path`` (already at ``square``) to ``moves``.

    ``opp`` holds the opponents not yet captured; landing on a square in ``stop`` (the crowning
    row, for a man) ends the route. Captured squares never need emptying: jumps land two rows
    away, so a landing square is never a square that was jumped.
    """
    extended = False
    for over, land_bit, land in table[square]:
        if opp & over and empty & land_bit:
            extended = True
            if stop_anywhere or land_bit & stop:
                moves.append((start_bit, land_bit, captured | over, path + (land,)))
            if not land_bit & stop:
                _extend(
                    moves,
                    start_bit,
                    land,
                    captured | over,
                    path + (land,),
                    opp ^ over,
                    empty,
                    table,
                    stop,
                    stop_anywhere,
                )
    if not extended and captured and not stop_anywhere:
        moves.append((start_bit, 1 << square, captured, path))


def generate(own: int, opp: int, kings: int, black: bool, captures_compulsory: bool = True) -> list[RawMove]:
    """All legal raw moves for the side to move (``own``), Black if ``black``.

    With ``captures_compulsory`` (American rules) any capture rules out ordinary moves and a
    capture continues while it can; without it (casual rules) ordinary moves, complete captures
    and every partial capture are all legal.
    """
    capturers = jumpers(own, opp, kings, black)
    if captures_compulsory:
        if capturers:
            return _capture_moves(own, opp, kings, black, capturers, False)
        return _simple_moves(own, kings, MASK32 ^ (own | opp), black)
    moves = _simple_moves(own, kings, MASK32 ^ (own | opp), black)
    if capturers:
        moves.extend(_capture_moves(own, opp, kings, black, capturers, True))
    return moves


def count_moves(own: int, opp: int, kings: int, black: bool) -> int:
    """Number of legal moves under compulsory captures, without building ordinary moves.

    Ordinary moves are counted with one popcount per shift; this is what makes perft's last
    ply cheap.
    """
    empty = MASK32 ^ (own | opp)
    down, up = (own, own & kings) if black else (own & kings, own)
    capturers = jumpers(own, opp, kings, black)
    if capturers:
        return len(_capture_moves(own, opp, kings, black, capturers, False))
    count = 0
    if down:
        count = (
            (((down & DOWN3) << 3) & empty).bit_count()
            + (((down & DOWN4) << 4) & empty).bit_count()
            + (((down & DOWN5) << 5) & empty).bit_count()
        )
    if up:
        count += (
            (((up & UP3) >> 3) & empty).bit_count()
            + (((up & UP4) >> 4) & empty).bit_count()
            + (((up & UP5) >> 5) & empty).bit_count()
        )
    return count


def apply(own: int, opp: int, kings: int, black: bool, move: tuple[int, int, int, object]) -> tuple[int, int, int]:
    """The (own, opp, kings) boards after ``move``; the side to move is not switched here."""
    from_bit, to_bit, captured, _ = move
    own = own ^ from_bit ^ to_bit
    if kings & from_bit:
        kings = ((kings ^ from_bit) | to_bit) & ~captured
    else:
        kings = (kings & ~captured) | (to_bit & crown_row(black))
    return own, opp ^ captured, kings


def perft(own: int, opp: int, kings: int, black: bool, depth: int, captures_compulsory: bool = True) -> int:
    """Count the leaf positions ``depth`` plies ahead, every capture route counted separately.

    The last ply is counted without being played ("bulk counting"), and ``apply`` is inlined:
    this loop is the whole cost of ``kingme perft``.
    """
    if depth <= 1:
        if depth == 0:
            return 1
        if captures_compulsory:
            return count_moves(own, opp, kings, black)
        return len(generate(own, opp, kings, black, False))
    total = 0
    crown = crown_row(black)
    white = not black
    depth -= 1
    leaf = depth == 1 and captures_compulsory
    for from_bit, to_bit, captured, _ in generate(own, opp, kings, black, captures_compulsory):
        if kings & from_bit:
            new_kings = ((kings ^ from_bit) | to_bit) & ~captured
        else:
            new_kings = (kings & ~captured) | (to_bit & crown)
        if leaf:
            total += count_moves(opp ^ captured, own ^ from_bit ^ to_bit, new_kings, white)
        else:
            total += perft(opp ^ captured, own ^ from_bit ^ to_bit, new_kings, white, depth, captures_compulsory)
    return total
