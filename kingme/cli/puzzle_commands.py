"""``kingme puzzles generate`` and ``kingme puzzles verify``: make and check the puzzle collection.

Both are long runs, so they draw a plain-text progress bar on stderr (standard output stays
for the results). ``verify`` exits with status 1 and names every puzzle that fails.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from kingme.engine.puzzles.analysis import VERIFY_DEPTH
from kingme.engine.puzzles.collection import Collection, stored_path
from kingme.engine.puzzles.model import Puzzle

_BAR_WIDTH = 30
#: A long generation run saves the collection after every this many new puzzles.
_SAVE_EVERY = 10


class ProgressBar:
    """``[#####.....] 12/365 what  41 s`` redrawn in place on a terminal, else a line per 5%."""

    def __init__(self, what: str, stream: TextIO | None = None) -> None:
        self.what = what
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self._last_step = -1
        self._live = self.stream.isatty()

    def __call__(self, done: int, total: int) -> None:
        total = max(total, 1)
        step = 20 * done // total
        if not self._live and step == self._last_step and done < total:
            return
        self._last_step = step
        filled = _BAR_WIDTH * done // total
        line = f"[{'#' * filled}{'.' * (_BAR_WIDTH - filled)}] {done}/{total} {self.what}"
        line += f"  {time.monotonic() - self.started:.0f} s"
        self.stream.write(f"\r{line}" if self._live else f"{line}\n")
        if self._live and done >= total:
            self.stream.write("\n")
        self.stream.flush()


def _file(text: str) -> Path:
    return Path(text)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return int(text)


def _run_generate(args: argparse.Namespace) -> int:
    from kingme.engine.puzzles.classics import verified_classics
    from kingme.engine.puzzles.generator import GeneratorBudget, generate

    path: Path = args.output
    existing = Collection.from_path(path).puzzles if path.exists() and not args.fresh else ()
    classics: tuple[Puzzle, ...] = ()
    if not args.no_classics:
        classics, rejected = verified_classics(progress=ProgressBar("classic positions"))
        for classic_id, reason in rejected:
            print(f"classic {classic_id} left out: {reason}", file=sys.stderr)
    budget = GeneratorBudget(games=args.games, first_game=args.first_game)
    known_ids = {p.id for p in existing}
    added = [p for p in classics if p.id not in known_ids]
    generated = 0
    for puzzle in generate(args.count, budget, known=existing + classics, progress=ProgressBar("puzzles")):
        added.append(puzzle)
        generated += 1
        if generated % _SAVE_EVERY == 0:
            _save(path, existing + tuple(added))
    if not existing and not added:
        print(f"no puzzle found in {args.games} games; {path} is unchanged", file=sys.stderr)
        return 1
    collection = _save(path, existing + tuple(added))
    print(f"{len(added)} puzzles added ({generated} generated), {len(collection)} in {path}")
    return 0


def _save(path: Path, puzzles: tuple[Puzzle, ...]) -> Collection:
    """Write the collection (also along the way, so a long run that is stopped keeps its finds)."""
    collection = Collection(puzzles)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(collection.to_json(), encoding="utf-8")
    partial.replace(path)  # readers never see a half-written file
    return collection


def _run_verify(args: argparse.Namespace) -> int:
    from kingme.engine.puzzles.verifier import verify

    collection = Collection.from_path(args.file)
    puzzles = collection.puzzles[: args.limit] if args.limit else collection.puzzles
    failures = verify(puzzles, progress=ProgressBar("puzzles verified"), depth=args.depth)
    for puzzle_id, reason in failures:
        print(f"REJECTED {puzzle_id}: {reason}")
    print(f"{len(puzzles) - len(failures)} of {len(puzzles)} puzzles verified")
    return 1 if failures else 0


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``kingme puzzles generate`` and ``kingme puzzles verify``."""
    puzzles = commands.add_parser("puzzles", help="make and check the puzzle collection")
    actions = puzzles.add_subparsers(dest="action", metavar="ACTION", parser_class=type(puzzles))
    actions.required = True

    p = actions.add_parser("generate", help="find puzzles in engine games and add them (with the classics)")
    p.add_argument("--count", type=_positive, default=365, help="puzzles to generate (default 365)")
    p.add_argument("--games", type=_positive, default=4000, help="most engine games to search (default 4000)")
    p.add_argument("--first-game", type=int, default=0, help="number of the first game (its seed)")
    p.add_argument("--output", type=_file, default=stored_path(), help="collection file (default: the package's)")
    p.add_argument("--fresh", action="store_true", help="start a new file instead of appending")
    p.add_argument("--no-classics", action="store_true", help="leave out the classic positions")
    p.set_defaults(run=_run_generate)

    p = actions.add_parser("verify", help="solve every stored puzzle again; reject any with a second solution")
    p.add_argument("--file", type=_file, default=stored_path(), help="collection file (default: the package's)")
    p.add_argument("--limit", type=_positive, default=0, help="verify only the first N puzzles")
    p.add_argument("--depth", type=_positive, default=VERIFY_DEPTH, help=f"search depth (default {VERIFY_DEPTH})")
    p.set_defaults(run=_run_verify)


def register_bench(targets: argparse._SubParsersAction) -> None:
    """No benchmark: ``kingme puzzles verify`` prints its own timing."""
