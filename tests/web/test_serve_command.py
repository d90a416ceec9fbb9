"""``kingme serve``: its options and their defaults."""

from __future__ import annotations

import pytest

from kingme.cli import build_parser


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
