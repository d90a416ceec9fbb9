"""A build of the endgame tables in a child process at the lowest priority, as ``kingme serve``
runs one (``kingme.server.endgame_tables``), and what such a build needs.

``python -m kingme.engine.egdb.background DIRECTORY PIECES`` builds every table of at most
PIECES pieces into DIRECTORY (``database.build``: tables already there are kept, each new one
written whole by rename, then the set file) and reports on its standard output, one JSON object
a line::

    {"table": "2K1M-2K1M", "done": 1234567, "total": 2982820048}   positions of the set done
    {"error": "..."}                                               why it failed (exit status 1)

a progress line whenever the table or the thousandth of the set done changes. It first lowers
its priority as far as it goes (nice 19: it gets a core only when nothing else wants one, so
it slows the server's event loop and engine workers no more than any niced process does), and
it stops at its next whole step — a chunk of slices, about a second — on SIGTERM or SIGINT, or
when its standard input ends, which is how it notices that its server has gone: a file being
written is removed, whole files are kept, and the next build resumes at the table it was on.
It takes no build lock of its own: it inherits its parent's (``database.take_build_lock``).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from kingme.engine.egdb.database import BuildCount, build
from kingme.engine.egdb.index import Material, materials
from kingme.engine.egdb.storage import DatabaseError

#: Niceness the build asks for: the lowest priority Linux gives (a request beyond it is capped).
LOWEST_PRIORITY = 19
#: Progress lines a build writes at most besides one a table: one per thousandth of the set.
REPORTS = 1000
#: The build's peak memory beyond its set's values: about four times its largest table (the
#: copy compressed for the file, the slice lists) plus Python, numpy and numba. Fitted to the
#: peaks measured with ``/usr/bin/time`` (docs/egdb.md): 4.26 GB for the 6-piece set against
#: 4.2 GB measured, 0.48 GB for the 5-piece set against 0.43 GB.
LARGEST_TABLE_COPIES = 4
RUNTIME_BYTES = 250_000_000
#: The table files beside the set file: compressed, they are 8-9% of the set's bytes (240 MB
#: for the 3.0 GB of the 6-piece set, 13.8 MB for the 150 MB of the 5-piece one), so an eighth.
TABLES_SHARE = 8
#: CPU seconds a whole build of each set took on one core of the development machine
#: (docs/egdb.md; for 5 pieces the slower of two runs): what a log line promises, roughly.
BUILD_CPU_SECONDS = {2: 1, 3: 1, 4: 6, 5: 93, 6: 890}


@dataclass(frozen=True)
class BuildNeeds:
    """What building a set takes, from scratch: bytes of free disk (the set file and the table
    files), bytes of memory at the peak, and CPU seconds on one core."""

    disk: int
    memory: int
    cpu_seconds: int


def build_needs(max_pieces: int) -> BuildNeeds:
    """What building the set of at most ``max_pieces`` pieces takes (``BuildNeeds``)."""
    sizes = [material.size for material in materials(max_pieces)]
    values = sum(sizes)
    return BuildNeeds(
        disk=values + values // TABLES_SHARE,
        memory=values + LARGEST_TABLE_COPIES * max(sizes) + RUNTIME_BYTES,
        cpu_seconds=BUILD_CPU_SECONDS[max_pieces],
    )


@dataclass(frozen=True)
class Progress:
    """A progress line: ``done`` of the set's ``total`` positions, ``table`` the one under way."""

    table: str
    done: int
    total: int


def read_report(line: bytes) -> Progress | str | None:
    """A line of the build's output as a ``Progress``, an error's text, or ``None`` when it is
    neither (anything else a library printed): the reader never fails on a line."""
    try:
        report = json.loads(line)
    except ValueError:
        return None
    if not isinstance(report, dict):
        return None
    if isinstance(report.get("error"), str):
        return str(report["error"])
    table, done, total = report.get("table"), report.get("done"), report.get("total")
    if isinstance(table, str) and type(done) is int and type(total) is int and 0 <= done <= total and total > 0:
        return Progress(table, done, total)
    return None


def _say(report: dict[str, object]) -> None:
    """One line on standard output, unbuffered: nothing is left to flush at exit."""
    os.write(sys.stdout.fileno(), (json.dumps(report) + "\n").encode())


class _Reporter:
    """The build's ``Progress`` callback, writing a line when the table or the thousandth changes."""

    def __init__(self, max_pieces: int) -> None:
        self._count = BuildCount(max_pieces)
        self._last: tuple[str, int] | None = None

    def __call__(self, material: Material, done: int, total: int) -> None:
        positions = self._count.positions(material, done, total)
        mark = (material.name, REPORTS * positions // self._count.total)
        if mark != self._last:
            self._last = mark
            _say({"table": material.name, "done": positions, "total": self._count.total})


def _stop(signum: int, frame: FrameType | None) -> None:
    """Stop at the next whole step: ``SystemExit`` unwinds the build, which removes the file it
    was writing (``storage``) and keeps the rest."""
    raise SystemExit(128 + signum)


def _stop_when_orphaned() -> None:
    """Wait for the end of standard input — the server closed it, or died — then stop. It reads
    the descriptor itself: a thread blocked inside ``sys.stdin`` holds its buffer's lock, and
    the interpreter aborts when it finds that lock taken at exit."""
    while os.read(sys.stdin.fileno(), 4096):
        pass
    os.kill(os.getpid(), signal.SIGTERM)


def main(arguments: list[str]) -> int:
    """Build the set ``arguments`` names (directory, pieces), reporting as described above."""
    directory, pieces = Path(arguments[0]), int(arguments[1])
    os.nice(LOWEST_PRIORITY)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    threading.Thread(target=_stop_when_orphaned, daemon=True).start()
    try:
        build(directory, pieces, _Reporter(pieces))
    except BrokenPipeError:
        return 1  # the server is gone: nobody to tell
    except (DatabaseError, OSError) as error:
        _say({"error": str(error)})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
