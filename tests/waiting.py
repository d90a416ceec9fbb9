"""How long a test waits for what it checks before it gives up.

No test depends on timing: a test waits for the state it checks (a process gone, a server
started, a message received), never for a delay, and the wait's bound only says when to give up,
so that a broken build fails instead of hanging the suite. A passing test waits no longer than
what it checks takes, so the bound can be generous: the same 30 s as the browser tests' waits
(``browser_support.WAIT_MS``), which on the shared 2-core machine under a full test run and a
background match were once needed, where 15 s ran out.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

#: Seconds a test waits for what it checks before it fails.
WAIT_SECONDS = 30

#: Seconds between two looks at a state that says nothing when it changes (a process's end):
#: often enough that a passing test is not slowed, seldom enough to cost no CPU worth counting.
LOOK_SECONDS = 0.05


def wait_until(condition: Callable[[], bool], what: str) -> None:
    """Return once ``condition()`` holds; fail the test with ``what`` (the state that never came)
    if it still does not after ``WAIT_SECONDS``."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not so after {WAIT_SECONDS} s"
        time.sleep(LOOK_SECONDS)


async def until(condition: Callable[[], bool], what: str) -> None:
    """``wait_until`` for asyncio code: the event loop runs on between the looks."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not so after {WAIT_SECONDS} s"
        await asyncio.sleep(LOOK_SECONDS)
