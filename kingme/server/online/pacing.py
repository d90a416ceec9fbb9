"""Spreading periodic work over its period instead of doing it all at once.

A server with a thousand rooms that re-announces every room's presence in one go holds its event
loop for that whole burst, and every move played meanwhile waits: at 1,000 games such a wave
every 15 s was most of the benchmark's slowest round trips. Doing one item at a time, evenly
spaced, costs the same and delays no one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


async def paced(
    items: Sequence[T],
    seconds: float,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> AsyncIterator[T]:
    """``items`` one at a time, the n-th of N when n/N of ``seconds`` have passed (when there
    are none, that much time passes all the same). Each is timed from the start, not from the
    one before: on a busy server every wake-up is late, and pauses that added up their delays
    would stretch the period without bound."""
    start = clock()
    if not items:
        await sleep(seconds)
    for number, item in enumerate(items, start=1):
        await sleep(max(0.0, start + seconds * number / len(items) - clock()))
        yield item
