"""The static front end: gzipped when asked, cached for a year under versioned URLs, app pages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from kingme.server.app import create_app
from kingme.server.settings import Settings
from kingme.server.static_files import FOREVER, WebFiles

#: What a browser sends on a first visit before any script runs (the page, its CSS and modules,
#: the English translations and the icon) must stay under this many bytes on the wire.
FIRST_LOAD_BUDGET = 60 * 1024


class InstantEngine:
    """No engine is needed to serve files."""

    def close(self) -> None:
        """Nothing to stop."""


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = Settings(data_dir=Path(tmp_path_factory.mktemp("data")), engine_workers=1)
    app = create_app(settings, engine_factory=lambda workers: InstantEngine(), extensions=())
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def versioned_links(page: str) -> list[str]:
    return re.findall(r'(?:href|src)="(/[^"]+\?v=[0-9a-f]+)"', page)


def test_the_page_links_its_styles_and_scripts_by_version(client):
    page = client.get("/").text
    links = versioned_links(page)
    assert "/css/app.css" in [link.split("?")[0] for link in links]
    assert "/js/main.js" in [link.split("?")[0] for link in links]


def test_a_versioned_file_may_be_kept_a_year_and_an_unversioned_one_is_revalidated(client):
    script = next(link for link in versioned_links(client.get("/").text) if link.startswith("/js/"))
    assert client.get(script).headers["cache-control"] == FOREVER
    assert client.get(script.split("?")[0]).headers["cache-control"] == "no-cache"
    assert client.get("/").headers["cache-control"] == "no-cache"
    assert client.get(script.split("?")[0] + "?v=000000000000").headers["cache-control"] == "no-cache"


def test_scripts_import_each_other_by_the_same_version(client):
    version = versioned_links(client.get("/").text)[0].split("?v=")[1]
    main = client.get("/js/main.js").text
    imports = re.findall(r'from "(\./[^"]+)"', main)
    assert imports and all(path.endswith(f".js?v={version}") for path in imports)
    assert f"/i18n/${{language}}.json?v={version}" in client.get("/js/i18n.js").text


def test_files_are_gzipped_for_a_browser_that_asks_and_plain_otherwise(client):
    packed = client.get("/js/main.js", headers={"accept-encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip" and packed.headers["vary"] == "accept-encoding"
    plain = client.get("/js/main.js", headers={"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert packed.text == plain.text  # the client unpacks it


def test_json_answers_are_gzipped_too(client):
    response = client.get("/api/info", headers={"accept-encoding": "gzip"})
    assert response.status_code == 200
    answer = client.post("/api/start", json={"setup": {"position": "standard"}}, headers={"accept-encoding": "gzip"})
    assert answer.headers.get("content-encoding") == "gzip"


def test_an_unchanged_file_is_not_sent_again(client):
    first = client.get("/css/app.css")
    again = client.get("/css/app.css", headers={"if-none-match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""


@pytest.mark.parametrize(
    "path",
    [
        "/daily",
        "/puzzle",
        "/puzzle/first-position",
        "/room/AbC123",
        "/room/AbC123/",
        "/analysis",
        "/archive",
        "/review",
        "/review/Ab_1-x",
    ],
)
def test_every_view_of_the_app_has_a_url_that_opens_the_page(client, path):
    response = client.get(path)
    assert response.status_code == 200 and "<title>" in response.text


@pytest.mark.parametrize(
    "path", ["/puzzle/a/b", "/room/<script>", "/../pyproject.toml", "/js/../../server/app.py", "/nothing.js"]
)
def test_anything_else_is_not_found(client, path):
    assert client.get(path).status_code == 404


def test_only_reading_is_allowed(client):
    assert client.post("/js/main.js", content=b"x").status_code == 405
    head = client.head("/js/main.js")
    assert head.status_code == 200 and head.content == b""


def test_the_first_load_fits_the_budget(client):
    """Every file the page needs before the player can move, gzipped as Chromium asks for it."""
    page = client.get("/", headers={"accept-encoding": "gzip"})
    wanted = [*versioned_links(page.text), "/i18n/en.json"]
    sent = {"/": int(page.headers["content-length"])}
    while wanted:
        path = wanted.pop()
        if path.split("?")[0] in sent:
            continue
        response = client.get(path, headers={"accept-encoding": "gzip"})
        assert response.status_code == 200, path
        sent[path.split("?")[0]] = int(response.headers["content-length"])
        if path.startswith("/js/"):
            wanted += [f"/js/{name[2:]}" for name in re.findall(r'from "(\./[^"?]+)', response.text)]
    assert "/js/board.js" in sent
    assert sum(sent.values()) <= FIRST_LOAD_BUDGET, f"the first load is {sum(sent.values())} bytes: {sent}"


def test_the_version_changes_when_any_file_changes(tmp_path):
    (tmp_path / "index.html").write_text('<link href="/app.css">')
    (tmp_path / "app.css").write_text("body{}")
    before = WebFiles(tmp_path).version
    (tmp_path / "app.css").write_text("body{color:red}")
    assert WebFiles(tmp_path).version != before
