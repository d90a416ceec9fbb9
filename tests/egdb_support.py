"""What the tests of endgame table builds share: a build lock held by another process."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: A process that takes a directory's build lock, says so, and holds it until its input ends.
_HOLD_LOCK = """
import sys
from pathlib import Path
from kingme.engine.egdb import build_lock
with build_lock(Path(sys.argv[1])):
    print("locked", flush=True)
    sys.stdin.read()
"""


@contextmanager
def lock_held_by_another_process(directory: Path) -> Iterator[None]:
    """``directory``'s build lock held by another Python process until the block ends, as a
    second ``kingme serve`` sharing the directory, or a ``kingme egdb build``, holds it."""
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LOCK, str(directory)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        yield
    finally:
        holder.communicate()
