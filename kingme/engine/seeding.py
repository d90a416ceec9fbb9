"""Repeatable randomness for the computer's choices.

A computer move must be a pure function of (setup, moves so far, level), on any machine and in
any process, so nothing here uses Python's ``hash()`` (salted per process) or the ``random``
module's global state. A ``SeededStream`` is SHA-256 in counter mode over a key built from the
game's seed, variant, start position and move history.
"""

from __future__ import annotations

import hashlib

from kingme.game import Game


class SeededStream:
    """A deterministic stream of random numbers drawn from ``key``."""

    def __init__(self, key: str) -> None:
        self._key = key.encode()
        self._counter = 0

    def _next(self) -> int:
        digest = hashlib.sha256(self._key + b"\x00" + str(self._counter).encode()).digest()
        self._counter += 1
        return int.from_bytes(digest[:16], "big")

    def below(self, n: int) -> int:
        """A whole number in ``range(n)``; the bias of 128-bit modulo is negligible."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        return self._next() % n

    def unit(self) -> float:
        """A number in [0, 1)."""
        return self._next() / float(1 << 128)


def game_stream(game: Game, purpose: str) -> SeededStream:
    """The stream for the computer's next choice in ``game``: seed, setup and every move so far.

    ``purpose`` (the level name, for instance) separates streams that must not coincide.
    """
    setup = game.setup
    history = " ".join(str(move) for move in game.moves)
    return SeededStream(
        f"{setup.seed}\x1f{setup.variant}\x1f{setup.fen}\x1f{len(game.moves)}\x1f{history}\x1f{purpose}"
    )
