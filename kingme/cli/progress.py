"""The progress bar of the long commands (puzzles, endgame databases), drawn on stderr so that
standard output stays for the results."""

from __future__ import annotations

import sys
import time
from typing import TextIO

_BAR_WIDTH = 30


class ProgressBar:
    """``[#####.....] 12/365 what  41 s`` redrawn in place on a terminal, else a line per 5%.

    The total may grow between calls (positions found while they are being listed); the line
    ends once ``done`` reaches it."""

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
        line = f"[{'#' * filled}{'.' * (_BAR_WIDTH - filled)}] {done:,}/{total:,} {self.what}"
        line += f"  {time.monotonic() - self.started:.0f} s"
        self.stream.write(f"\r{line}" if self._live else f"{line}\n")
        if self._live and done >= total:
            self.stream.write("\n")
        self.stream.flush()
