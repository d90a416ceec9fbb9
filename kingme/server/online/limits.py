"""Limits that keep one client from wearing out the server: message rates, room creation, Origin."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable


class TokenBucket:
    """Allows ``rate`` actions per second on average, with bursts of up to ``burst``."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._stamp = clock()

    def allow(self) -> bool:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False


class RoomCreationLimiter:
    """At most ``per_hour`` rooms created per client address in any hour (per process)."""

    #: Addresses remembered at most; the oldest are forgotten first.
    MAX_ADDRESSES = 100_000

    def __init__(self, per_hour: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_hour = per_hour
        self._clock = clock
        self._recent: dict[str, deque[float]] = {}

    def allow(self, address: str) -> bool:
        now = self._clock()
        stamps = self._recent.pop(address, None) or deque()
        while stamps and now - stamps[0] >= 3600:
            stamps.popleft()
        allowed = len(stamps) < self.per_hour
        if allowed:
            stamps.append(now)
        self._recent[address] = stamps  # re-inserted: most recently seen last
        if len(self._recent) > self.MAX_ADDRESSES:
            del self._recent[next(iter(self._recent))]
        return allowed


def origin_allowed(origin: str | None, host: str | None, scheme: str, allowed: Iterable[str]) -> bool:
    """Whether a WebSocket upgrade with this ``Origin`` may proceed.

    Browsers always send ``Origin``; it must be this server — the page's scheme (``https`` for a
    ``wss`` socket, ``http`` for ``ws``) and the ``Host`` header's host and port — or one of the
    configured origins. Clients that are not browsers send none, and cannot be used to ride a
    visitor's browser, so they pass.

    >>> origin_allowed("https://play.example:8443", "play.example:8443", "wss", [])
    True
    >>> origin_allowed("http://play.example", "play.example", "wss", [])
    False
    >>> origin_allowed("https://evil.example", "play.example", "wss", [])
    False
    """
    if origin is None:
        return True
    origin = origin.strip().rstrip("/").lower()
    if origin in {item.strip().rstrip("/").lower() for item in allowed}:
        return True
    page_scheme = "https" if scheme in ("wss", "https") else "http"
    return host is not None and host != "" and origin == f"{page_scheme}://{host.strip().lower()}"
