"""Server settings, read from the environment once at start-up.

With nothing set, kingme runs on its embedded defaults: SQLite in the data directory and
in-process pub/sub. ``KINGME_DATABASE_URL`` (a ``postgresql://`` URL) and ``KINGME_REDIS_URL``
(a ``redis://`` URL) switch to PostgreSQL and Redis so several processes can share rooms.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


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
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        workers = env.get("KINGME_ENGINE_WORKERS", "2")
        if not workers.isdigit() or not 1 <= int(workers) <= 64:
            raise ValueError(f"KINGME_ENGINE_WORKERS must be a whole number from 1 to 64, not {workers!r}")
        return cls(
            data_dir=Path(env.get("KINGME_DATA_DIR") or _default_data_dir()),
            database_url=env.get("KINGME_DATABASE_URL") or None,
            redis_url=env.get("KINGME_REDIS_URL") or None,
            engine_workers=int(workers),
        )

    @property
    def sqlite_path(self) -> Path:
        """The SQLite file used when no database URL is set."""
        return self.data_dir / "kingme.sqlite3"
