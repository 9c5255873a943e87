"""The model of a run that names none, the models a client may choose from, and the advice when there is none."""

from __future__ import annotations

from pathlib import Path

import pytest

from quorum.composition.container import build_container
from quorum.composition.listing import model_rows
from quorum.composition.model_choice import (
    COMMAND_LINE,
    NO_MODEL_HELP,
    ModelNaming,
    NoModelChosen,
    advice,
    choose_model,
    default_model,
)
from quorum.composition.options import AppOptions
from quorum.domain.errors import UsageError


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no quorum.toml of the repository


def test_no_model_is_a_usage_error_carrying_the_command_lines_advice() -> None:
    with pytest.raises(NoModelChosen) as raised:
        choose_model(None, {})
    assert isinstance(raised.value, UsageError)  # every driver's handler of usage errors still catches it
    assert str(raised.value) == NO_MODEL_HELP == advice(COMMAND_LINE)
    assert "Name one with --model provider:model" in NO_MODEL_HELP and "--model scripted:demo" in NO_MODEL_HELP


def test_a_driver_words_the_advice_its_own_way() -> None:
    naming = ModelNaming(name_it="Pick one from the list", offline="pick scripted:demo")
    worded = advice(naming)
    assert worded.startswith("no model configured. Pick one from the list, or set `model = ")
    assert "To try Quorum offline, with no key: pick scripted:demo;" in worded
    assert "--model" not in worded and "OPENAI_API_KEY" in worded


def test_the_default_is_the_configured_model_else_a_keys_default_else_none() -> None:
    resolve = {"fast": "openai:gpt-4.1-mini"}.get
    assert default_model("fast", {}, lambda m: resolve(m, m)) == "openai:gpt-4.1-mini"
    assert default_model(None, {"ANTHROPIC_API_KEY": "k"}, str) == "anthropic:claude-sonnet-4-5"
    assert default_model(None, {}, str) is None


def test_the_rows_list_the_configured_the_default_and_the_offline_models_then_the_aliases() -> None:
    overrides = {"model": "scripted:chat.json", "aliases": {"fast": "openai:gpt-4.1-mini"}}
    container = build_container(AppOptions(overrides=overrides), env={})
    rows = model_rows(container.gateway(), "scripted:chat.json")
    assert rows == [
        {"provider": "openai", "model": "openai:gpt-4.1-mini", "source": "configured"},
        {"provider": "scripted", "model": "scripted:chat.json", "source": "configured"},
        {"provider": "test", "model": "test", "source": "offline"},
        {"provider": "scripted", "model": "scripted:demo", "source": "offline"},
        {"alias": "fast", "model": "openai:gpt-4.1-mini"},
    ]


def test_a_default_the_configuration_does_not_name_is_listed_as_the_default() -> None:
    container = build_container(AppOptions(), env={"OPENAI_API_KEY": "k"})
    rows = model_rows(container.gateway(), "openai:gpt-4.1-mini")
    assert rows[0] == {"provider": "openai", "model": "openai:gpt-4.1-mini", "source": "default"}
    assert [row["model"] for row in rows[1:]] == ["test", "scripted:demo"]


def test_the_python_api_words_the_advice_for_a_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "QUORUM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    from quorum import Agent

    with pytest.raises(UsageError) as raised:
        Agent().run_sync("hello")
    said = str(raised.value)
    assert said.startswith('no model configured. Name one with Agent(model="provider:model")')
    assert 'Agent(model="scripted:demo")' in said and "--model" not in said
