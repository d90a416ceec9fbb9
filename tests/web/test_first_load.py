"""The first visit's weight, measured as Chromium receives it (issue 13: at most 60 KB).

Bytes, not time: what crossed the wire (headers and gzipped bodies) from a cold cache until the
page is ready and the network is idle, the page's API answers included. docs/operations.md quotes the
figure this test prints.
"""

from __future__ import annotations

from typing import Any

import pytest
from browser_support import DESKTOP

pytestmark = pytest.mark.browser

#: The issue's budget for a first visit, in bytes on the wire.
FIRST_LOAD_BUDGET = 60 * 1024


def test_a_first_visit_transfers_at_most_60_kb(browser: Any, server: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        network = context.new_cdp_session(page)
        network.send("Network.enable")
        received: dict[str, int] = {}
        network.on(
            "Network.loadingFinished", lambda event: received.update({event["requestId"]: event["encodedDataLength"]})
        )
        page.goto(server)
        page.wait_for_selector("html[data-ready=true]")
        page.wait_for_load_state("networkidle")
        total = sum(received.values())
        print(f"first visit: {total} bytes over {len(received)} requests")
        assert total <= FIRST_LOAD_BUDGET, f"the first visit transferred {total} bytes over {len(received)} requests"
    finally:
        context.close()
