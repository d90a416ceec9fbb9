"""Garbage-collector settings for a process that keeps thousands of games alive.

A server with a thousand online rooms (and the benchmark client driving them) holds millions of
long-lived objects. CPython's default thresholds run a collection every 700 allocations, and
every so often a full collection walks all of those objects, stalling every connection at once:
`kingme bench online --games 1000` measured a p99 round trip of about 400 ms with the defaults,
and 21 ms with the settings below (p50 unchanged at under 2 ms; the table of that
benchmark in docs/operations.md has the figures).

Even then, at 1,000 games each young collection walked 80,000–110,000 objects — the games'
moves, kept for the whole game, and each connection's pending read, made again at every
message — for 60–100 ms every 10–20 s, and the moves that queued behind it made most of the
slowest round trips. So a server also freezes what is alive every second (``gc.freeze``: frozen
objects are never walked, and the young generation never fills) and collects everything once an
hour, so that reference cycles, which play does not make, still go.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable

#: Allocations between young collections, and young (middle) collections between middle (full) ones.
THRESHOLDS = (50_000, 20, 100)
#: A server freezes what is alive this often, and collects everything this often.
FREEZE_SECONDS = 1.0
FULL_COLLECTION_SECONDS = 3600.0


def tune_for_many_live_objects() -> None:
    """Move everything alive now (modules, tables) out of the collector's sight and collect less
    often. Call once at process start-up, before serving; reference cycles are still collected."""
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)


def tune_server() -> threading.Thread:
    """``tune_for_many_live_objects``, then keep survivors frozen in a thread of its own for the
    process's lifetime (``keep_survivors_frozen``). For server processes, not tests: a frozen
    object is hidden from ``gc.get_objects``."""
    tune_for_many_live_objects()
    never = threading.Event()  # a server freezes for as long as it runs
    thread = threading.Thread(target=keep_survivors_frozen, args=(never.wait,), name="kingme-gc", daemon=True)
    thread.start()
    return thread


def keep_survivors_frozen(
    wait: Callable[[float], bool],
    every: float = FREEZE_SECONDS,
    full_every: float = FULL_COLLECTION_SECONDS,
) -> None:
    """Freeze everything alive every ``every`` seconds, until ``wait(every)`` returns True; every
    ``full_every`` seconds unfreeze and collect everything first. An object frozen and freed
    later is freed at once as always (by its reference count); only a reference cycle waits
    for the next full collection."""
    passes_per_full_collection = max(1, round(full_every / every))
    passes = 0
    while not wait(every):
        passes += 1
        if passes % passes_per_full_collection == 0:
            gc.unfreeze()
            gc.collect()
        gc.freeze()
