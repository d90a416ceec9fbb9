"""The page's words in one language, as the browser ends up with them: ``i18n/<language>.json``
and the files of every part loaded later (``i18n/<part>/<language>.json``: help, online, review,
analysis), merged the way js/i18n.js merges them (a part may add keys to a section)."""

from __future__ import annotations

import json
from typing import Any

from kingme.server.app import WEB_DIR

LANGUAGES = ("en", "es", "fr", "de", "pt")


def translation(language: str) -> dict[str, Any]:
    """The page's words in ``language`` with those of every part loaded later."""
    table: dict[str, Any] = json.loads((WEB_DIR / "i18n" / f"{language}.json").read_text())
    for part in sorted(path for path in (WEB_DIR / "i18n").iterdir() if path.is_dir()):
        for key, value in json.loads((part / f"{language}.json").read_text()).items():
            both = isinstance(value, dict) and isinstance(table.get(key), dict)
            table[key] = table[key] | value if both else value
    return table
