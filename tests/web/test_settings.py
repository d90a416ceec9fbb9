"""The server's settings from environment variables: every one is read by the same two rules
(whole numbers in a range, comma-separated lists), so every one refuses bad text the same way."""

from __future__ import annotations

import pytest

from kingme.server.connection_limits import ConnectionLimits
from kingme.server.edge import EdgeSettings
from kingme.server.online.config import OnlineConfig
from kingme.server.pubsub import RedisOptions
from kingme.server.settings import Settings

NUMBERS = [
    (Settings.from_env, "KINGME_ENGINE_WORKERS", "1 to 64"),
    (EdgeSettings.from_env, "KINGME_MAX_HEADERS", "10 to 1000"),
    (ConnectionLimits.from_env, "KINGME_MAX_CONNECTIONS", "1 to 1000000"),
    (OnlineConfig.from_env, "KINGME_ROOMS_PER_HOUR", "1 to 10000000"),
    (RedisOptions.from_env, "KINGME_REDIS_POOL", "1 to 1000"),
]


@pytest.mark.parametrize(("read", "name", "bounds"), NUMBERS)
@pytest.mark.parametrize("text", ["0", "99999999", "-3", "2.5", "many", "", "²"])
def test_a_bad_whole_number_is_refused_naming_the_variable_its_range_and_the_text(read, name, bounds, text):
    with pytest.raises(ValueError) as refusal:
        read({name: text})
    assert str(refusal.value) == f"{name} must be a whole number from {bounds}, not {text!r}"


def test_whole_numbers_in_range_are_read_and_unset_ones_take_their_default():
    assert Settings.from_env({"KINGME_ENGINE_WORKERS": "4", "KINGME_DATA_DIR": "/srv"}).engine_workers == 4
    assert Settings.from_env({"KINGME_DATA_DIR": "/srv"}).engine_workers == Settings.engine_workers
    assert EdgeSettings.from_env({"KINGME_MAX_HEADERS": "10"}).max_headers == 10
    assert EdgeSettings.from_env({}).max_headers == EdgeSettings.max_headers


def test_lists_are_split_at_commas_with_spaces_and_empty_items_dropped():
    origins = OnlineConfig.from_env({"KINGME_ALLOWED_ORIGINS": " https://a.example, ,https://b.example,"})
    assert origins.allowed_origins == ("https://a.example", "https://b.example")
    edge = EdgeSettings.from_env({"KINGME_ALLOWED_HOSTS": "Checkers.Example , play.example:8000,"})
    assert edge.allowed_hosts == ("checkers.example", "play.example:8000")
    assert [
        str(network) for network in EdgeSettings.from_env({"KINGME_TRUSTED_PROXIES": "10.0.0.0/8, "}).trusted_proxies
    ] == ["10.0.0.0/8"]
    assert OnlineConfig.from_env({}).allowed_origins == EdgeSettings.from_env({}).allowed_hosts == ()


def test_without_a_mapping_the_process_environment_is_read_as_it_is_at_the_call(monkeypatch):
    monkeypatch.setenv("KINGME_MAX_HEADERS", "12")
    assert EdgeSettings.from_env().max_headers == 12
    monkeypatch.delenv("KINGME_MAX_HEADERS")
    assert EdgeSettings.from_env().max_headers == EdgeSettings.max_headers
