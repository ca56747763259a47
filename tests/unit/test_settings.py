"""One settings model: cmem.toml read once per Home and again only when it changes, every
table checked by one loader in one-line errors, and every environment variable named in
collective/config/environment.py and read there only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from collective.config import VARIABLES, Home, Settings, settings_from
from collective.config import home as home_module
from collective.dream.settings import DreamSettings
from collective.errors import BadInput
from collective.sync.events.connection import NatsOptions
from collective.sync.policy import PolicySettings
from collective.sync.schedule import SyncSettings

ROOT = Path(__file__).resolve().parents[2]
# modules touching os.environ for something other than a setting, and why
NOT_SETTINGS = {"collective/store/credentials.py": "sets doltlite's DOLTLITE_CREDS_* around a call, then restores them"}


def test_cmem_toml_is_read_once_and_again_when_it_changes(tmp_path, monkeypatch):
    (tmp_path / "cmem.toml").write_text("[merge]\namplitude_cap = 3.0\n")
    reads = []
    real = home_module.read_config
    monkeypatch.setattr(home_module, "read_config", lambda path: reads.append(path) or real(path))
    home = Home.at(tmp_path)
    assert home.settings.amplitude_cap == 3.0 and home.section(DreamSettings).neighbours == 8
    assert home.settings is home.settings and home.config is home.config and len(reads) == 1
    (tmp_path / "cmem.toml").write_text("[merge]\namplitude_cap = 2.5\n[dream]\nneighbours = 4\n")
    assert home.settings.amplitude_cap == 2.5 and home.section(DreamSettings).neighbours == 4 and len(reads) == 2


def test_the_first_init_writing_the_default_agent_is_seen_at_once(tmp_path):
    home = Home.at(tmp_path)
    assert home.setting("agent") is None
    home.remember_default_agent("earth-1")
    assert home.setting("agent") == "earth-1" and home.config == {"agent": "earth-1"}


def test_the_environment_goes_over_cmem_toml(tmp_path, monkeypatch):
    (tmp_path / "cmem.toml").write_text('collective = "site-a"\nremote = "origin"\n')
    home = Home.at(tmp_path)
    assert (home.collective, home.setting("remote"), home.setting("nats_url")) == ("site-a", "origin", None)
    monkeypatch.setenv("CMEM_COLLECTIVE", "site-b")
    monkeypatch.setenv("CMEM_NATS_URL", "nats://a:4222, nats://b:4222")
    assert home.collective == "site-b"
    assert NatsOptions.from_home(home).servers == ("nats://a:4222", "nats://b:4222")
    assert NatsOptions.from_home(home, servers=("nats://c:4222",)).servers == ("nats://c:4222",)  # the option


@pytest.mark.parametrize("section, config, problem", [
    (DreamSettings, {"dream": {"neighbours": 2.5}}, "[dream] neighbours must be a whole number, got 2.5"),
    (DreamSettings, {"dream": {"neighbors": 8}}, "[dream] has unknown setting(s) neighbors"),
    (NatsOptions, {"nats": {"replicas": "three"}}, "[nats] replicas must be a whole number, got 'three'"),
    (NatsOptions, {"nats": {"servers": 7}}, "[nats] servers must be text, got 7"),
    (PolicySettings, {"listen": {"pull_now": -1}}, "[listen] pull_now must be from 0 to 10, got -1"),
    (Settings, {"events": {"outbox_limit": 0}}, "[events] outbox_limit must be at least 1, got 0"),
    (Settings, {"trust": {"half_lives": {"skill": -2}}}, "[trust] half_lives.skill must be more than 0 days, got -2"),
    (Settings, {"trust": {"half_life": 3}}, "[trust] has unknown setting(s) half_life"),
    (SyncSettings, {"sync": []}, "[sync] must be a table, got []"),
])
def test_a_bad_setting_is_one_line_naming_its_table_and_key(section, config, problem):
    with pytest.raises(BadInput) as refused:
        settings_from(section, config)
    assert refused.value.field == "cmem.toml" and refused.value.problem == problem


def test_a_nats_servers_given_as_one_text_is_a_list_of_one():
    assert settings_from(NatsOptions, {"nats": {"servers": "nats://a:4222"}}).servers == ("nats://a:4222",)


def test_every_environment_variable_is_in_the_table_and_read_through_it():
    named, readers = set(), []
    for path in sorted(p for package in ("collective", "dream", "sync") for p in (ROOT / package).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        named |= set(re.findall(r"\bCMEM_[A-Z][A-Z_]*\b", text))
        if re.search(r"os\.environ\.get|os\.getenv|environ\[\"", text):
            readers.append(path.relative_to(ROOT).as_posix())
    assert named <= set(VARIABLES), f"not in collective/config/environment.py: {sorted(named - set(VARIABLES))}"
    assert readers == ["collective/config/environment.py", *NOT_SETTINGS]
    assert all(v.sets and "\n" not in v.sets for v in VARIABLES.values())
