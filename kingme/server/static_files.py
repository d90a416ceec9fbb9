"""The static front end, served small and cached for good: gzip, versioned URLs, app pages.

Why: the page is about 160 KB of text that compresses to a quarter of that, and a returning
player should not download it again. ``WebFiles`` reads ``kingme/web`` once when the app is made
(``kingme serve`` serves the files it started with) and keeps every file in memory, gzipped too.

Versioned URLs: the whole front end gets one version, a hash of every file. The page's links to
its stylesheets and scripts, the scripts' imports and their references to stylesheets and
translations carry ``?v=<version>``; an answer to a URL with the current version may be kept a
year (``immutable``), anything else is revalidated (``no-cache`` with an ``ETag``). A new
release changes the version, so no browser keeps an old script beside a new page.

App pages: ``/``, ``/analysis``, ``/daily``, ``/puzzle``, ``/puzzle/<id>``, ``/room/<id>``,
``/archive``, ``/review`` and ``/review/<id>`` all answer with the page itself, which reads its
URL, so a reload or a shared link opens the same view.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, Response
from starlette.types import Receive, Scope, Send

#: A year: what a browser may keep a file whose URL names its version.
FOREVER = "public, max-age=31536000, immutable"
#: Types worth compressing (images other than SVG are compressed already).
COMPRESSIBLE = ("text/", "application/json", "image/svg+xml")
#: Paths of the single-page app's views: each answers with the page.
APP_PAGES = re.compile(
    r"^/(?:analysis|daily|puzzle|puzzle/[A-Za-z0-9_-]{1,80}|room/[A-Za-z0-9_-]{1,80}|archive|review|review/[A-Za-z0-9_-]{1,80})/?$"
)

#: References that get the version appended: the page's links, the scripts' imports, the
#: stylesheet a script adds and the translation files it fetches.
_PAGE_LINKS = re.compile(r'((?:href|src)="/[^"?#]+\.(?:css|js|svg))"')
_SCRIPT_REFERENCES = re.compile(
    r'((?:from\s+|import\s*\(\s*|import\s+)"\./[^"?]+\.js)"|("/css/[^"?]+\.css)"|(`/i18n/[^`?]+\.json)`'
)


@dataclass(frozen=True)
class WebFile:
    """One file of the front end as it is sent: its bytes, gzipped bytes if smaller, its type."""

    body: bytes
    gzipped: bytes | None
    media_type: str
    etag: str


def _media_type(path: Path) -> str:
    if path.suffix == ".js":
        return "text/javascript; charset=utf-8"
    guessed = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if guessed.startswith("text/") or guessed == "application/json" or guessed == "image/svg+xml":
        return f"{guessed}; charset=utf-8"
    return guessed


def _versioned(path: Path, body: bytes, version: str) -> bytes:
    """``body`` with its references to other files of the front end carrying ``?v=version``."""
    if path.suffix == ".html":
        pattern, text = _PAGE_LINKS, body.decode()
        return pattern.sub(lambda m: f'{m.group(1)}?v={version}"', text).encode()
    if path.suffix == ".js":

        def tag(match: re.Match[str]) -> str:
            whole = next(group for group in match.groups() if group)
            return f"{whole}?v={version}{match.group(0)[-1]}"

        return _SCRIPT_REFERENCES.sub(tag, body.decode()).encode()
    return body


def _web_file(path: Path, body: bytes) -> WebFile:
    media_type = _media_type(path)
    packed = gzip.compress(body, compresslevel=9, mtime=0) if media_type.startswith(COMPRESSIBLE) else None
    etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
    return WebFile(body, packed if packed is not None and len(packed) < len(body) else None, media_type, etag)


def read_front_end(directory: Path) -> tuple[str, dict[str, WebFile]]:
    """The front end's version and its files by URL path (``/js/main.js``), references versioned."""
    sources = {
        "/" + path.relative_to(directory).as_posix(): path
        for path in sorted(directory.rglob("*"))
        if path.is_file() and not path.name.startswith(".")
    }
    digest = hashlib.sha256()
    raw = {}
    for url, path in sources.items():
        raw[url] = path.read_bytes()
        digest.update(url.encode() + b"\0" + raw[url] + b"\0")
    version = digest.hexdigest()[:12]
    return version, {url: _web_file(sources[url], _versioned(sources[url], body, version)) for url, body in raw.items()}


class WebFiles:
    """ASGI app serving the front end from memory (GET and HEAD); see the module's docstring."""

    def __init__(self, directory: Path) -> None:
        self.version, self.files = read_front_end(directory)

    def lookup(self, path: str) -> WebFile | None:
        if path == "/" or APP_PAGES.match(path):
            path = "/index.html"
        return self.files.get(path)

    def response(self, scope: Scope) -> Response:
        if scope["method"] not in ("GET", "HEAD"):
            return PlainTextResponse("Method Not Allowed", 405, headers={"allow": "GET, HEAD"})
        found = self.lookup(scope["path"])
        if found is None:
            return PlainTextResponse("Not Found", 404)
        headers = Headers(scope=scope)
        query = scope.get("query_string", b"").decode("latin-1")
        cache = FOREVER if f"v={self.version}" in query.split("&") else "no-cache"
        common = {"cache-control": cache, "etag": found.etag, "vary": "accept-encoding"}
        if found.etag in headers.get("if-none-match", ""):
            return Response(status_code=304, headers=common)
        # The same test as Starlette's GZipMiddleware, which compresses the JSON answers.
        if found.gzipped is not None and "gzip" in headers.get("accept-encoding", ""):
            body, common = found.gzipped, {**common, "content-encoding": "gzip"}
        else:
            body = found.body
        response = Response(body, media_type=found.media_type, headers=common)
        if scope["method"] == "HEAD":
            response.body = b""
        return response

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.response(scope)(scope, receive, send)
