"""``kingme bench online`` in miniature: it plays, measures, and stays on loopback."""

from __future__ import annotations

import pytest
from async_support import in_thread

from kingme.cli import main
from kingme.server.online.bench import bench_online, check_loopback


def test_the_online_benchmark_plays_games_and_reports_round_trips():
    figures = in_thread(bench_online, games=2, seconds=1.5, think=0.05)
    assert figures.errors == 0 and len(figures.round_trips) > 4
    report = figures.report()
    assert "moves/s" in report and "p99" in report


def test_the_online_benchmark_refuses_other_hosts_and_unbounded_runs(capsys):
    with pytest.raises(ValueError, match="loopback"):
        check_loopback("http://example.com:8000")
    assert main(["bench", "online", "--games", "0"]) == 2
    assert main(["bench", "online", "--games", "2", "--seconds", "601"]) == 2
    assert main(["bench", "online", "--url", "http://10.0.0.1:8000"]) == 2
    assert "loopback" in capsys.readouterr().err
