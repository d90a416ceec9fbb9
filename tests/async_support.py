"""Running a coroutine from a synchronous test.

Playwright's sync API leaves an event loop running in the test thread of any xdist worker that
has run a browser test, and ``asyncio.run`` refuses to start inside a running loop. So every
async scenario runs to its end in a thread of its own, where no loop runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def in_thread(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)`` in a fresh thread (for code that calls ``asyncio.run`` itself)."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(function, *args, **kwargs).result()


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` in a fresh thread; returns its result or raises its error."""
    return in_thread(asyncio.run, coroutine)
