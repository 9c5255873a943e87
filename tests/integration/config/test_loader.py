"""Config layering and every error path of the loader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.config.loader import collect_layers, validate
from quorum.infrastructure.config.schema import Settings
from quorum.infrastructure.review.settings import ReviewSettings
from quorum.infrastructure.storage.settings import StorageSettings
from tests.support.config import builtin_sections

REPO = Path(__file__).resolve().parents[3]


class FakeProviderSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    base_url: str | None = None
    max_retries: int = 2


PROVIDERS: dict[str, Any] = {"openai": FakeProviderSettings, "test": None}


def load(
    tmp_path: Path,
    *,
    env: dict[str, str] | None = None,
    config: Path | None = None,
    overrides: dict[str, Any] | None = None,
    user_dir: Path | None = None,
) -> Settings:
    raw = collect_layers(cwd=tmp_path, env=env or {}, user_config_dir=user_dir, config_path=config, overrides=overrides)
    return validate(raw, provider_models=PROVIDERS, section_models=builtin_sections())


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults_without_any_file(tmp_path: Path) -> None:
    settings = load(tmp_path)
    assert settings.model is None
    assert settings.agent.max_tool_turns == 10
    assert settings.section(ReviewSettings).rule == "majority"


def test_layers_later_wins(tmp_path: Path) -> None:
    user = tmp_path / "user"
    write(
        user / "quorum.toml",
        'model = "u:m"\n[agent]\nmax_tool_turns = 2\ntimeout_seconds = 20\nmax_rejections = 5\n',
    )
    write(tmp_path / "quorum.toml", "[agent]\nmax_tool_turns = 3\ntimeout_seconds = 30\n")
    extra = write(tmp_path / "extra.toml", "[agent]\nmax_tool_turns = 4\n")
    settings = load(
        tmp_path,
        user_dir=user,
        config=extra,
        env={"QUORUM_AGENT__MAX_PARALLEL_TOOLS": "2", "QUORUM_MODEL": "env:m"},
        overrides={"agent": {"tool_timeout_seconds": 9}},
    )
    assert settings.model == "env:m"  # env over user
    assert settings.agent.max_rejections == 5  # user
    assert settings.agent.timeout_seconds == 30  # ./quorum.toml over user
    assert settings.agent.max_tool_turns == 4  # --config over ./quorum.toml
    assert settings.agent.max_parallel_tools == 2  # env, coerced from a string
    assert settings.agent.tool_timeout_seconds == 9  # flags last


def test_flags_beat_environment(tmp_path: Path) -> None:
    settings = load(tmp_path, env={"QUORUM_MODEL": "env:m"}, overrides={"model": "flag:m"})
    assert settings.model == "flag:m"


def test_origins_are_recorded(tmp_path: Path) -> None:
    write(tmp_path / "quorum.toml", "[agent]\nmax_tool_turns = 3\n")
    raw = collect_layers(cwd=tmp_path, env={"QUORUM_MODEL": "x:y"}, user_config_dir=None)
    assert raw.origins["agent.max_tool_turns"] == "quorum.toml"
    assert raw.origins["model"] == "environment"


def test_env_json_values_and_quorum_db(tmp_path: Path) -> None:
    settings = load(tmp_path, env={"QUORUM_REVIEW__REVIEWERS": '["a:b", "c:d"]', "QUORUM_DB": "/tmp/x.db"})
    assert settings.section(ReviewSettings).reviewers == ["a:b", "c:d"]
    assert str(settings.section(StorageSettings).path) == "/tmp/x.db"


def test_error_names_file_key_and_expectation(tmp_path: Path) -> None:
    write(tmp_path / "quorum.toml", "[agent]\nmax_tool_turns = 0\n")
    with pytest.raises(ConfigurationError) as info:
        load(tmp_path)
    assert str(info.value) == "quorum.toml: agent.max_tool_turns: must be ≥ 1, got 0"


def test_unknown_key_suggests_the_right_one(tmp_path: Path) -> None:
    write(tmp_path / "quorum.toml", "[agent]\nmax_tool_turn = 3\n")
    with pytest.raises(
        ConfigurationError,
        match=r"quorum.toml: agent.max_tool_turn: unknown key; did you mean 'max_tool_turns'\?",
    ):
        load(tmp_path)


def test_unknown_section_suggests_the_right_one(tmp_path: Path) -> None:
    write(tmp_path / "quorum.toml", "[tols]\nx = 1\n")
    with pytest.raises(ConfigurationError, match=r"quorum.toml: tols: unknown key; did you mean 'tools'\?"):
        load(tmp_path)


def test_every_problem_is_listed(tmp_path: Path) -> None:
    write(tmp_path / "quorum.toml", '[agent]\nmax_tool_turns = "many"\non_turn_limit = "explode"\n')
    with pytest.raises(ConfigurationError) as info:
        load(tmp_path)
    text = str(info.value)
    assert "agent.max_tool_turns: expected an integer, got 'many'" in text
    assert "agent.on_turn_limit: must be one of 'summarize' or 'stop', got 'explode'" in text


def test_env_errors_name_the_environment(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="environment: agent.max_tool_turns: expected an integer"):
        load(tmp_path, env={"QUORUM_AGENT__MAX_TOOL_TURNS": "lots"})


def test_invalid_toml_names_file_and_position(tmp_path: Path) -> None:
    write(tmp_path / "quorum.toml", "[agent\n")
    with pytest.raises(ConfigurationError, match=r"quorum.toml: invalid TOML: .*line 1"):
        load(tmp_path)


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="nope.toml: file not found"):
        load(tmp_path, config=tmp_path / "nope.toml")


def test_provider_section_validated_by_its_kind(tmp_path: Path) -> None:
    write(
        tmp_path / "quorum.toml",
        '[providers.ollama]\ntype = "openai"\nbase_url = "http://localhost:11434/v1"\n',
    )
    settings = load(tmp_path)
    instance = settings.providers["ollama"]
    assert (instance.name, instance.kind, instance.settings.base_url) == (
        "ollama",
        "openai",
        "http://localhost:11434/v1",
    )


def test_provider_setting_error_has_full_key_path(tmp_path: Path) -> None:
    write(tmp_path / "quorum.toml", '[providers.ollama]\ntype = "openai"\nmax_retries = "x"\nbase_ur = "u"\n')
    with pytest.raises(ConfigurationError) as info:
        load(tmp_path)
    assert "quorum.toml: providers.ollama.max_retries: expected an integer" in str(info.value)
    assert "providers.ollama.base_ur: unknown key; did you mean 'base_url'?" in str(info.value)


def test_unknown_provider_type(tmp_path: Path) -> None:
    write(tmp_path / "quorum.toml", '[providers.x]\ntype = "gemini"\n')
    with pytest.raises(
        ConfigurationError,
        match=r"providers.x.type: unknown provider type 'gemini'; installed provider types: openai, test",
    ):
        load(tmp_path)


def test_plugin_declared_sections(tmp_path: Path) -> None:
    class Weather(BaseModel):
        model_config = ConfigDict(extra="forbid")
        city: str

    write(tmp_path / "quorum.toml", '[weather]\ncity = "Paris"\n')
    raw = collect_layers(cwd=tmp_path, env={}, user_config_dir=None)
    settings = validate(raw, provider_models={}, section_models={"weather": Weather})
    assert settings.extensions["weather"].city == "Paris"
    write(tmp_path / "quorum.toml", "[weather]\ncty = 1\n")
    raw = collect_layers(cwd=tmp_path, env={}, user_config_dir=None)
    with pytest.raises(ConfigurationError, match="weather.cty: unknown key; did you mean 'city'"):
        validate(raw, provider_models={}, section_models={"weather": Weather})


def test_the_repository_sample_config_is_valid(tmp_path: Path) -> None:
    from quorum.infrastructure.plugins import load_plugins

    catalog = load_plugins(autoload=False)
    raw = collect_layers(cwd=tmp_path, env={}, user_config_dir=None, config_path=REPO / "quorum.toml")
    settings = validate(
        raw,
        provider_models={e.name: e.settings for e in catalog.providers.entries()},
        section_models={e.name: e.value for e in catalog.config_sections.entries()},
    )
    assert settings.model
