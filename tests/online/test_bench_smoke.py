"""``kingme bench online`` in miniature: it plays, measures, and stays on loopback."""

from __future__ import annotations

from collections import Counter

import pytest
from async_support import in_thread

from kingme.cli.online_commands import report, soak_report
from kingme.server.online.bench import Figures, bench_online, busy_processes, check_loopback, check_run, soak_online


def test_the_online_benchmark_plays_games_and_reports_round_trips():
    # A round trip on loopback takes milliseconds: one in 3 s leaves a margin of a thousand, so a
    # loaded machine cannot fail this (it asked for five in 1.5 s before, which it could).
    figures = in_thread(bench_online, games=2, seconds=3, think=0.05)
    assert not figures.errors and figures.round_trips
    printed = report(figures)
    assert "moves/s" in printed and "p99" in printed


def test_the_load_option_runs_busy_processes_beside_the_games_and_stops_them():
    with busy_processes(2) as busy:
        assert [process.poll() for process in busy] == [None, None]  # spinning meanwhile
    assert all(process.poll() is not None for process in busy)
    with pytest.raises(ValueError, match="--load must be from 0 to 16"):
        check_run(2, 5, 1, load=17)
    loaded = Figures(2, seconds=2.0, round_trips=[0.01, 0.02], load=2)
    assert "for 2.0 s, 2 busy processes beside them" in report(loaded) and "p99 20.0 ms" in report(loaded)


def test_the_online_report_counts_in_words():
    one = Figures(1, seconds=2.0, round_trips=[0.01], finished_games=1)
    assert report(one).startswith("online: 1 game (2 connections) on 1 server process for 2.0 s")
    two = Figures(2, processes=2, errors=Counter(timeout=1))
    assert report(two) == "online: 2 games: no move completed (errors: 1 (timeout 1))"


def test_the_online_benchmark_refuses_other_hosts_and_unbounded_runs():
    """(``kingme bench online`` refuses them as option errors: tests/cli/test_command_line.py.)"""
    with pytest.raises(ValueError, match="loopback"):
        check_loopback("http://example.com:8000")
    with pytest.raises(ValueError, match="--games"):
        check_run(0, 5, 1)
    with pytest.raises(ValueError, match="--seconds"):
        check_run(2, 601, 1)


def test_two_processes_need_postgresql_and_redis_and_no_url(monkeypatch):
    monkeypatch.delenv("KINGME_DATABASE_URL", raising=False)
    with pytest.raises(ValueError, match="KINGME_DATABASE_URL"):
        check_run(10, 5, 1, processes=2)
    with pytest.raises(ValueError, match="1 or 2"):
        check_run(10, 5, 1, processes=3)
    with pytest.raises(ValueError, match="--url"):
        check_run(10, 5, 1, "http://127.0.0.1:8000", processes=2)


def test_the_soak_benchmark_reports_server_memory_before_and_after():
    figures = in_thread(soak_online, 2, 40)
    assert figures.connects == 40 and figures.before_mb > 0
    assert "growth" in soak_report(figures)
