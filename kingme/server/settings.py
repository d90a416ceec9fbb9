"""Server settings, read from the environment once at start-up.

With nothing set, kingme runs on its embedded defaults: SQLite in the data directory and
in-process pub/sub. ``KINGME_DATABASE_URL`` (a ``postgresql://`` URL) and ``KINGME_REDIS_URL``
(a ``redis://`` URL) switch to PostgreSQL and Redis so several processes can share rooms.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kingme.server.environment import whole_number


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

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        workers = whole_number(env, "KINGME_ENGINE_WORKERS", cls.engine_workers, 1, 64)
        return cls(
            data_dir=Path(env.get("KINGME_DATA_DIR") or _default_data_dir()),
            database_url=env.get("KINGME_DATABASE_URL") or None,
            redis_url=env.get("KINGME_REDIS_URL") or None,
            engine_workers=workers,
        )

    @property
    def sqlite_path(self) -> Path:
        """The SQLite file used when no database URL is set."""
        return self.data_dir / "kingme.sqlite3"
