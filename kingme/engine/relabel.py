"""Deeper scores for self-play positions (``kingme tune relabel``): those without kings, and with
``tables`` those with kings above the tables too.

Self-play's labels say little about the early middlegame: its positions without kings are mostly
followed by draws, and the search that chose each move had a few thousand nodes. Measured on
24,000 games (docs/engine.md, *A network per phase*), their labels' spread about 0.5 is 0.11,
and the network explains 56% of what they hold where it explains 93% with kings on the board.
So each distinct quiet position without kings in a folder's games is searched again by master's
search with the network, ``nodes`` nodes, and its score kept beside the games;
``kingme tune net --deep NODES`` then labels those positions by the deeper score (blended with
their TD returns, ``network_training.read_examples``).

A position without kings has no history that matters: every move of a man is irreversible, so no
earlier position can repeat and the 80-ply count is at 0. Its deep score is a function of the
position and the budget alone, and each position is searched once however many games reached it.

Self-play's endings with kings are labelled by its own few-thousand-node searches and by how games
between weak players ended, while master loses its games against Cake in king endings of 7 to 11
pieces (docs/strength.md). With the endgame tables a search of such a position reaches proven
results a few exchanges down, so ``tables`` adds the positions with kings and more pieces than the
tables hold, searched with them from the position alone (no earlier positions, the 80-ply count at
0): a label is the position's, not one game's.

Scores are appended to ``deep-NODES-W.txt`` (worker ``W`` takes the positions whose ``_share`` is
``W``) in batches of ``BATCH`` positions between ``# batch`` and ``# end`` lines, each row
``black white kings side score`` (hex bits, ``b``/``w``, Black's score in hundredths of a man). A
stopped run loses at most the batch it was in; the same command then searches only the positions
no complete batch holds, so more games added to the folder later are relabelled by running it
again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from kingme.engine.analysis import deepen
from kingme.engine.egdb.database import Tables
from kingme.engine.movegen import capturers
from kingme.engine.selfplay import MAX_DEPTH, read_batches, resume_batches, write_batch

#: Positions searched between two writes: about ten seconds of a worker at 100,000 nodes.
BATCH = 400
#: Transposition table of 2**18 entries: a search of a few hundred thousand nodes fills few.
TABLE_BITS = 18

#: A position: Black's bits, White's bits, the kings' bits, Black to move.
Quiet = tuple[int, int, int, bool]


def file_name(nodes: int, worker: int | str) -> str:
    """The deep scores of searches of ``nodes`` nodes by ``worker`` (``"*"``: a pattern for every
    worker's file)."""
    return f"deep-{nodes}-{worker}.txt"


def _share(position: Quiet, workers: int) -> int:
    """The worker that searches ``position``: a function of the position alone, so a resumed run
    gives every position to the same worker as before."""
    black, white, kings, black_to_move = position
    return (black * 31 + white * 7 + kings * 3 + black_to_move) % workers


def positions(games: Iterable[Path], tables: Tables | None = None) -> list[Quiet]:
    """Every distinct position without kings in the self-play files whose side to move has no
    capture (a position with a capture is never evaluated, so the network never learns it), with
    ``tables`` also those with kings and more pieces than the tables hold, in the order the files
    first hold them."""
    seen: dict[Quiet, None] = {}
    for _, batch in read_batches(list(games)):
        for p in batch:
            if p.kings and (tables is None or (p.black | p.white).bit_count() <= tables.max_pieces):
                continue
            own, opp = (p.black, p.white) if p.black_to_move else (p.white, p.black)
            if not capturers(own, opp, p.kings, p.black_to_move):
                seen.setdefault((p.black, p.white, p.kings, p.black_to_move), None)
    return list(seen)


def deep_score(position: Quiet, nodes: int, tables: Tables | None = None) -> int:
    """Black's score of ``position`` by master's search of ``nodes`` nodes with the network (and
    ``tables``)."""
    black, white, kings, black_to_move = position
    own, opp = (black, white) if black_to_move else (white, black)
    _, _, score, _ = deepen(
        own, opp, kings, black_to_move, 0, [], MAX_DEPTH, nodes, table_bits=TABLE_BITS, tables=tables
    )
    return score if black_to_move else -score


def read_scores(paths: Iterable[Path]) -> dict[Quiet, int]:
    """Black's deep score of every position in the complete batches of ``paths``; a
    ``ValueError`` naming the file and line where a line is not what ``relabel`` writes."""
    scores: dict[Quiet, int] = {}
    for path in paths:
        rows: dict[Quiet, int] = {}
        for line_number, line in enumerate(path.read_text().splitlines(), start=1):
            if line.startswith("# batch "):
                rows = {}
            elif line.startswith("# end "):
                scores.update(rows)
            elif line:
                try:
                    black, white, kings, side, score = line.split()
                    if side not in ("b", "w"):
                        raise ValueError(side)
                    rows[(int(black, 16), int(white, 16), int(kings, 16), side == "b")] = int(score)
                except ValueError:
                    raise ValueError(f"{path}, line {line_number}: not a deep score: {line[:60]!r}") from None
    return scores


def relabel(
    directory: Path,
    nodes: int,
    worker: int = 0,
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
    tables: Tables | None = None,
) -> int:
    """Search this worker's share of the positions of ``directory``'s games (``positions``) that
    no complete batch of any worker's file scores at ``nodes`` nodes and append their scores to its
    file; the number of positions searched."""
    path = directory / file_name(nodes, worker)
    number = resume_batches(path)
    # Every worker's file: a run with another number of workers shares the positions otherwise.
    done = read_scores(directory.glob(file_name(nodes, "*")))
    todo = [
        p
        for p in positions(sorted(directory.glob("games-*.txt")), tables)
        if _share(p, workers) == worker and p not in done
    ]
    with path.open("a") as out:
        for first in range(0, len(todo), BATCH):
            rows = []
            for position in todo[first : first + BATCH]:
                black, white, kings, black_to_move = position
                side = "b" if black_to_move else "w"
                rows.append(f"{black:x} {white:x} {kings:x} {side} {deep_score(position, nodes, tables)}")
            write_batch(out, number, rows)
            number += 1
            if progress:
                progress(f"worker {worker}: {min(first + BATCH, len(todo)):,} of {len(todo):,} positions")
    return len(todo)
