"""``kingme serve``: its options and their defaults, and how Ctrl-C stops it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request

import pytest
from waiting import wait_until

from kingme.cli import build_parser, main


def test_serve_listens_on_localhost_port_8000_by_default():
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port) == ("127.0.0.1", 8000)


def test_serve_takes_a_host_and_a_port():
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--port", "8080"])
    assert (args.host, args.port) == ("0.0.0.0", 8080)


@pytest.mark.parametrize("port", ["0", "65536", "http", "-1"])
def test_serve_refuses_a_port_outside_1_to_65535_with_status_2(port, capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["serve", "--port", port])
    assert stop.value.code == 2
    assert "1 to 65535" in capsys.readouterr().err


def one_line_error(argv: list[str], capsys) -> str:
    """Run ``kingme ...``; it must fail with status 2 and one line on stderr, which is returned."""
    assert main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kingme: error: "), lines
    return lines[0]


def test_serve_refuses_a_data_directory_it_cannot_write(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("KINGME_DATA_DIR", str(blocker / "data"))
    assert "data directory" in one_line_error(["serve"], capsys)


def test_serve_refuses_a_database_of_an_unknown_kind(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KINGME_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("KINGME_DATABASE_URL", "mysql://root:secret@db.example/kingme")
    line = one_line_error(["serve"], capsys)
    assert "postgresql://" in line and "secret" not in line


def test_serve_refuses_a_database_it_cannot_reach(tmp_path, monkeypatch, capsys):
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("KINGME_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("KINGME_DATABASE_URL", f"postgresql://kingme:secret@127.0.0.1:{port}/kingme")
    line = one_line_error(["serve"], capsys)
    assert f"127.0.0.1:{port}" in line and "secret" not in line


def test_serve_refuses_a_port_in_use(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KINGME_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("KINGME_DATABASE_URL", raising=False)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert "in use" in one_line_error(["serve", "--port", str(port)], capsys)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("KINGME_HANDSHAKE_TIMEOUT", "forever"),
        ("KINGME_REDIS_PREFIX", "a:b c"),
        ("KINGME_EGDB_PIECES", "7"),
        ("KINGME_EGDB_PIECES", "3"),
        ("KINGME_EGDB_PIECES", "six"),
    ],
)
def test_serve_refuses_a_bad_setting(tmp_path, monkeypatch, capsys, variable, value):
    monkeypatch.setenv("KINGME_DATA_DIR", str(tmp_path))
    monkeypatch.setenv(variable, value)
    assert variable in one_line_error(["serve"], capsys)


def test_ctrl_c_stops_the_server_and_its_engine_workers_in_one_line(tmp_path):
    """A terminal's Ctrl-C reaches every process of the command, the engine workers too: the
    operator sees the server's one line, not a traceback from each worker."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "KINGME_DATA_DIR": str(tmp_path), "KINGME_EGDB_DIR": str(tmp_path / "egdb")}
    env["KINGME_EGDB_PIECES"] = "0"  # no background table build
    process = subprocess.Popen(
        [sys.executable, "-m", "kingme", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as in a terminal
    )
    try:
        assert process.stdout
        assert "serving on" in process.stdout.readline()

        def workers_ready() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info", timeout=5) as answer:
                    return bool(json.load(answer)["engineReady"])
            except OSError:
                return False

        wait_until(workers_ready, "the engine workers started")
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=120)
        assert process.stdout.read().splitlines() == ["kingme: stopped"]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
