"""Every refusal code the online routes, their WebSocket and the edge in front of them can send
has a sentence of its own in every language of the page (``online.errors.<code>``), so a player
never reads the server's English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from page_words import LANGUAGES, translation

from kingme.server.edge import CODES

SERVER = Path(__file__).resolve().parents[2] / "kingme" / "server"
#: Where a refusal names its code in the source: the online errors, the edge's answers and the
#: connection limits' answers before any app.
RAISED = re.compile(
    r'(?:ProtocolError|RoomError|RoomGone)\(\s*"([a-z_]+)"'  # the online protocol's refusals
    r'|(?:refusal|_refuse|send_error)\([^"\n]*"([a-z_]+)"'  # the edge's and the connection limits'
)
#: Codes the page's online routes cannot meet: the one-device API's rules refusals and the
#: statuses of unknown API paths and methods.
NOT_ONLINE = {"refused_by_rules", "not_found", "method_not_allowed"}


def server_codes() -> set[str]:
    sources = [*SERVER.glob("*.py"), *(SERVER / "online").glob("*.py")]
    codes = {code for path in sources for match in RAISED.finditer(path.read_text()) for code in match.groups() if code}
    return (codes | set(CODES.values())) - NOT_ONLINE


def test_the_codes_are_found_in_the_source():
    assert {"room_full", "unavailable", "too_many_connections", "unknown_host", "move_id_reused"} <= server_codes()


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_online_refusal_code_has_a_sentence_in_every_language(language):
    sentences = translation(language)["online"]["errors"]  # the room's words load with the room
    assert server_codes() - set(sentences) == set()
    assert all(isinstance(text, str) and text.strip() for text in sentences.values())
