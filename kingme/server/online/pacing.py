"""Spreading periodic work over its period instead of doing it all at once.

A server with a thousand rooms that re-announces every room's presence in one go holds its event
loop for that whole burst, and every move played meanwhile waits: at 1,000 games such a wave
every 15 s was most of the benchmark's slowest round trips. Doing one item at a time, evenly
spaced, costs the same and delays no one.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


async def paced(
    items: Sequence[T], seconds: float, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
) -> AsyncIterator[T]:
    """``items`` one at a time, each after an equal share of ``seconds``: the last comes when
    ``seconds`` have passed (when there are none, that much time passes all the same)."""
    if not items:
        await sleep(seconds)
    pause = seconds / max(1, len(items))
    for item in items:
        await sleep(pause)
        yield item
