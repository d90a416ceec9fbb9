"""Server settings, read from the environment once at start-up.

With nothing set, kingme runs on its embedded defaults: SQLite in the data directory and
in-process pub/sub. ``KINGME_DATABASE_URL`` (a ``postgresql://`` URL) and ``KINGME_REDIS_URL``
(a ``redis://`` URL) switch to PostgreSQL and Redis so several processes can share rooms.
``KINGME_EGDB_PIECES`` says which endgame tables ``kingme serve`` builds in the background
(``kingme.server.endgame_tables``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kingme.server.environment import one_of, whole_number

#: What ``KINGME_EGDB_PIECES`` may be: 5 or 6, the set ``kingme serve`` builds in the background
#: when the tables' directory holds a smaller one; 0 or 4, no background build (the engine
#: builds the 4-piece set on first use in any case: ``egdb.SMALL_PIECES``, and 6 is
#: ``egdb.MAX_PIECES``; kept as numbers here so that reading the settings loads no engine).
EGDB_PIECES_CHOICES = (0, 4, 5, 6)
#: ``kingme serve``'s default: the largest set, with which the engine plays its best.
EGDB_PIECES = 6


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "kingme"


@dataclass(frozen=True)
class Settings:
    """Everything the server needs to know about where it runs."""

    data_dir: Path
    database_url: str | None = None
    redis_url: str | None = None
    engine_workers: int = 2
    #: The endgame tables to build in the background (``KINGME_EGDB_PIECES``). Settings made in
    #: code, as tests make them, build none unless they say so; ``from_env`` defaults to 6.
    egdb_pieces: int = 0

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        workers = whole_number(env, "KINGME_ENGINE_WORKERS", cls.engine_workers, 1, 64)
        return cls(
            data_dir=Path(env.get("KINGME_DATA_DIR") or _default_data_dir()),
            database_url=env.get("KINGME_DATABASE_URL") or None,
            redis_url=env.get("KINGME_REDIS_URL") or None,
            engine_workers=workers,
            egdb_pieces=one_of(env, "KINGME_EGDB_PIECES", EGDB_PIECES, EGDB_PIECES_CHOICES),
        )

    @property
    def sqlite_path(self) -> Path:
        """The SQLite file used when no database URL is set."""
        return self.data_dir / "kingme.sqlite3"
