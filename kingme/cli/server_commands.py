"""Subcommands of the server layer: ``kingme serve``."""

from __future__ import annotations

import argparse

from kingme.cli.arguments import whole_number

_port = whole_number(1, 65535, "TCP has no other ports")


def serve(args: argparse.Namespace) -> int:
    """Run the web app with uvicorn until interrupted (after the start-up checks of ``preflight``)."""
    import uvicorn

    from kingme.server.app import create_app
    from kingme.server.connection_limits import ConnectionLimits, uvicorn_options
    from kingme.server.endgame_tables import show_log
    from kingme.server.gc_tuning import tune_server
    from kingme.server.preflight import check_settings, listening_socket
    from kingme.server.settings import Settings

    settings = Settings.from_env()
    check_settings(settings)
    sock = listening_socket(args.host, args.port)
    app = create_app(settings)
    tune_server()
    show_log()
    print(f"kingme: serving on http://{args.host}:{args.port} (Ctrl+C stops)", flush=True)
    options = uvicorn_options(ConnectionLimits.from_env())
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level=args.log_level, **options)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def serve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=["critical", "error", "warning", "info", "debug"],
        help="uvicorn's log level (default warning)",
    )
    parser.set_defaults(run=serve)
