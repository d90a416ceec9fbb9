"""Endgame databases: the exact value of every position with few pieces, looked up.

Built once by retrograde analysis (``kingme egdb build --pieces N``), a database holds for
every position of at most N pieces (kings and men, either side to move) whether the side to
move wins, loses or draws with best play and, for a win or a loss, the *distance to
conversion*: the plies until the next capture or man's move, the winner hurrying and the loser
holding out. See ``index`` (numbering), ``build`` (retrograde solving), ``storage`` (files).

Why distance to conversion rather than to the end: the 80-ply rule draws a game after 80 plies
without a capture or a man moving — exactly a conversion. A winner who always plays a move that
keeps the win with the smallest distance to conversion converts within that distance (the
loser can only convert sooner), and conversions cannot repeat (pieces leave the board, men only
advance). So the values are those of play under the rule from a fresh count: ``build`` stores
a win or a loss whose distance exceeds ``MAX_PLIES`` (80) as a draw (see ``build``; none up to
five pieces, some six-piece ones), and with ``q`` quiet plies already played a stored
distance ``n`` is a win (or loss) in play exactly when ``q + n <= 80``, else a draw
(``within_rule``). A game enters a table by a capture, so at a fresh count, but a game that
starts in one, or shuffles inside one, must check. A distance to the end would not ensure any
of this: the quickest finish may run through a longer quiet stretch.

API for the engine (all compiled; call from numba code or Python alike)::

    tables = load(directory, max_pieces)          # Python: MissingTable / CorruptTable on error
    tables = load_or_build(directory, max_pieces) # the same, building the small (<= 4) set if absent
    directory = default_directory()               # $KINGME_EGDB_DIR or ~/.local/share/kingme/egdb
    pieces = largest_built(directory)             # the largest set whose files are all there (0: none)
    with build_lock(directory): ...               # one build at a time (BuildBusy if another runs)
    value = probe(tables.offsets, tables.values, black, white, kings, black_to_move)

``black``, ``white`` and ``kings`` are the engine's 32-bit boards (bit ``i`` is square
``i + 1``). ``value`` is, for the side to move:

- ``UNKNOWN`` (-1): more pieces than loaded, or a side without pieces while the side to move
  still has some (a finished game);
- ``DRAW`` (0);
- ``WIN + n`` (1024 + n): a win converting in ``n`` plies (``n`` >= 1);
- ``LOSS + n`` (2048 + n): a loss, the winner converting in ``n`` plies (``LOSS + 0`` when the
  side to move has no move at all).

``is_win``, ``is_loss`` and ``plies`` take such a value apart. For a ``Board``,
``moves.move_value(tables, board, move)`` is a move's value for the side playing it and
``moves.best_move(tables, board)`` the fastest conversion that keeps a win, else a draw, else the
longest defence (what a hint should show). Distances are stored in one byte, at most
``MAX_PLIES``. Values are the board's alone at a fresh 80-ply count: repetition and the count
so far are not part of them (``within_rule`` applies the count), and a probe is exact even when
a capture is pending.
"""

from __future__ import annotations

from kingme.engine.egdb.database import (
    MAX_PIECES,
    SMALL_PIECES,
    BuildBusy,
    BuildCount,
    BuildEstimate,
    MaterialReport,
    Tables,
    TooManyPieces,
    build,
    build_lock,
    default_directory,
    estimate_build,
    largest_built,
    load,
    load_or_build,
    take_build_lock,
    verify_tables,
)
from kingme.engine.egdb.index import Material
from kingme.engine.egdb.probe import (
    DRAW,
    LOSS,
    MAX_PLIES,
    UNKNOWN,
    WIN,
    is_loss,
    is_win,
    plies,
    probe,
    within_rule,
)
from kingme.engine.egdb.storage import CorruptTable, DatabaseError, MissingTable

__all__ = [
    "DRAW",
    "LOSS",
    "MAX_PIECES",
    "MAX_PLIES",
    "SMALL_PIECES",
    "UNKNOWN",
    "WIN",
    "BuildBusy",
    "BuildCount",
    "BuildEstimate",
    "CorruptTable",
    "DatabaseError",
    "Material",
    "MaterialReport",
    "MissingTable",
    "Tables",
    "TooManyPieces",
    "build",
    "build_lock",
    "default_directory",
    "estimate_build",
    "is_loss",
    "is_win",
    "largest_built",
    "load",
    "load_or_build",
    "plies",
    "probe",
    "take_build_lock",
    "verify_tables",
    "within_rule",
]
