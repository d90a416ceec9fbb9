"""``kingme serve``: its options and their defaults."""

from __future__ import annotations

import socket

import pytest

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
