"""Every string of the page comes from the translation files, in all five languages."""

from __future__ import annotations

import re

import pytest
from page_words import LANGUAGES, translation

from kingme.server.app import WEB_DIR


def keys(table: dict, prefix: str = "") -> set[str]:
    found = set()
    for name, value in table.items():
        found |= keys(value, f"{prefix}{name}.") if isinstance(value, dict) else {prefix + name}
    return found


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
