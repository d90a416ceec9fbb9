"""Every string of the page comes from the translation files, in all five languages."""

from __future__ import annotations

import json
import re

import pytest

from kingme.server.app import WEB_DIR

LANGUAGES = ("en", "es", "fr", "de", "pt")


def keys(table: dict, prefix: str = "") -> set[str]:
    found = set()
    for name, value in table.items():
        found |= keys(value, f"{prefix}{name}.") if isinstance(value, dict) else {prefix + name}
    return found


def translation(language: str) -> dict:
    """The page's words in ``language`` with those of every part loaded later (``i18n/<part>/``)."""
    table = json.loads((WEB_DIR / "i18n" / f"{language}.json").read_text())
    for part in sorted(path for path in (WEB_DIR / "i18n").iterdir() if path.is_dir()):
        for key, value in json.loads((part / f"{language}.json").read_text()).items():
            both = isinstance(value, dict) and isinstance(table.get(key), dict)
            table[key] = table[key] | value if both else value  # a part may add keys to a section
    return table


@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_language_has_exactly_the_english_keys(language):
    assert keys(translation(language)) == keys(translation("en"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_lists_in_the_help_have_as_many_entries_as_in_english(language):
    english, other = translation("en")["help"], translation(language)["help"]
    for name, value in english.items():
        if isinstance(value, list):
            assert len(other[name]) == len(value), name


def test_every_key_the_page_asks_for_exists_in_english():
    source = (WEB_DIR / "index.html").read_text() + "".join(p.read_text() for p in (WEB_DIR / "js").glob("*.js"))
    used = set(re.findall(r'data-i18n(?:-aria-label)?="([\w.-]+)"', source))
    used |= set(re.findall(r'\b(?:t|entry)\("([\w.-]+)"', source))
    assert used - keys(translation("en")) == set()
