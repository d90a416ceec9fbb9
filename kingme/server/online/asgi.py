"""A server of the online routes alone (``python -m kingme.server.online.asgi --port N``).

Used by the scale-out test and ``kingme bench online``, which need nothing but rooms. It runs
behind the same edge (``kingme.server.edge``) and connection limits as ``kingme serve``.
"""

from __future__ import annotations

import argparse

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware

from kingme.server.connection_limits import ConnectionLimits, uvicorn_options
from kingme.server.edge import EXCEPTION_HANDLERS, Edge, EdgeSettings
from kingme.server.gc_tuning import tune_server
from kingme.server.online import OnlineConfig, OnlineServer
from kingme.server.settings import Settings


def app_for(server: OnlineServer, edge: EdgeSettings | None = None) -> Starlette:
    """A Starlette app serving ``server``'s routes, started and stopped with it."""
    middleware = [Middleware(Edge, settings=edge or EdgeSettings.from_env())]
    return Starlette(
        routes=server.routes(),
        lifespan=server.lifespan,
        middleware=middleware,
        exception_handlers=dict(EXCEPTION_HANDLERS),
    )


def create_app(settings: Settings | None = None, config: OnlineConfig | None = None) -> Starlette:
    """A whole server process of its own, so the collector is tuned too."""
    app = app_for(OnlineServer(settings or Settings.from_env(), config))
    tune_server()
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description="serve the online routes alone (for tests and benchmarks)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    options = uvicorn_options(ConnectionLimits.from_env())
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level="warning", backlog=4096, **options)


if __name__ == "__main__":
    main()
