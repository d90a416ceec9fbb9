"""The ``random`` level: seed 000's casual computer, which never looks ahead.

It plays the way a person clicks: first a piece and its first step, then, in a multi-jump, each
further jump in turn among the continuations. That is a walk down the tree of route prefixes,
choosing uniformly among the distinct next prefixes at each node (and, in the casual variant,
"stop here" when a shorter capture ends at the current prefix).
"""

from __future__ import annotations

from kingme.engine.seeding import SeededStream
from kingme.rules import Move


def pick_by_steps(moves: list[Move], stream: SeededStream) -> Move:
    """One of ``moves`` (non-empty), chosen step by step along the route prefixes."""
    candidates = sorted(moves)
    prefix: tuple[int, ...] = ()
    while True:
        size = len(prefix) + 1 if prefix else 2
        options = sorted({m.path[:size] for m in candidates if len(m.path) >= size})
        complete = [m for m in candidates if m.path == prefix]
        if complete:
            options.append(prefix)
        choice = options[stream.below(len(options))]
        if choice == prefix:
            return complete[0]
        candidates = [m for m in candidates if m.path[:size] == choice]
        prefix = choice
