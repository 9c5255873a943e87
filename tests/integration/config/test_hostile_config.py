"""The loader under hostile input: stray QUORUM_* variables, relative paths, odd files, bombs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.config.loader import collect_layers, validate
from quorum.infrastructure.config.schema import Settings
from quorum.infrastructure.review.settings import ReviewSettings
from quorum.infrastructure.storage.settings import StorageSettings
from quorum.infrastructure.tools.settings import ToolsSettings
from tests.support.config import builtin_sections


class PluginSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: int = 0


def load(cwd: Path, env: dict[str, str] | None = None, config: Path | None = None) -> tuple[Settings, list[str]]:
    warnings: list[str] = []
    raw = collect_layers(cwd=cwd, env=env or {}, user_config_dir=None, config_path=config)
    settings = validate(
        raw,
        provider_models={"test": None},
        section_models={**builtin_sections(), "myplugin": PluginSection},
        warn=warnings.append,
    )
    return settings, warnings


def test_variables_that_are_not_keys_are_ignored_with_one_warning_each(tmp_path: Path) -> None:
    env = {
        "QUORUM_FOO": "1",
        "QUORUM_AGENT__NO_SUCH_KEY": "2",
        "QUORUM_PLUGINS__X": "3",
        "QUORUM_AGENT__MAX_TOOL_TURNS": "4",
        "QUORUM_MYPLUGIN__LEVEL": "5",
        "QUORUM_CONFIG": "",
        "QUORUM_DB": str(tmp_path / "runs.db"),
        "QUORUM_DISABLE_PLUGIN_AUTOLOAD": "1",
        "QUORUM_TRACE_PLUGINS": "1",
        "QUORUM_STRICT_ENV": "0",
    }
    settings, warnings = load(tmp_path, env)
    assert warnings == [
        "ignoring QUORUM_AGENT__NO_SUCH_KEY: not a configuration key",
        "ignoring QUORUM_FOO: not a configuration key",
        "ignoring QUORUM_PLUGINS__X: not a configuration key",
    ]
    assert settings.agent.max_tool_turns == 4
    assert settings.extensions["myplugin"].level == 5


def test_strict_env_makes_them_an_error_naming_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"QUORUM_FOO: not a configuration key \(QUORUM_STRICT_ENV"):
        load(tmp_path, {"QUORUM_FOO": "1", "QUORUM_STRICT_ENV": "1"})


def test_variables_naming_no_key_of_a_plugin_section_are_ignored_as_those_of_the_core(tmp_path: Path) -> None:
    env = {"QUORUM_TOOLS__NO_SUCH_KEY": "1", "QUORUM_REVIEW__HIL_MODE": "defer", "QUORUM_TOOLS__SANDBOX__NOPE": "2"}
    settings, warnings = load(tmp_path, env)
    assert warnings == [
        "ignoring QUORUM_TOOLS__NO_SUCH_KEY: not a configuration key",
        "ignoring QUORUM_TOOLS__SANDBOX__NOPE: not a configuration key",
    ]
    assert settings.section(ReviewSettings).hil_mode == "defer"
    (tmp_path / "quorum.toml").write_text("[tools]\nno_such_key = 1\n")
    with pytest.raises(ConfigurationError, match="quorum.toml: tools.no_such_key: unknown key"):
        load(tmp_path, env)  # the variable is dropped; the file's key is still an error
    with pytest.raises(ConfigurationError, match="QUORUM_TOOLS__NO_SUCH_KEY, QUORUM_TOOLS__SANDBOX__NOPE: not a"):
        load(tmp_path, {**env, "QUORUM_STRICT_ENV": "1"})


def test_a_bad_value_for_a_real_key_is_still_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="agent.max_tool_turns"):
        load(tmp_path, {"QUORUM_AGENT__MAX_TOOL_TURNS": "many"})


def test_paths_in_a_file_are_relative_to_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = tmp_path / "conf"
    (conf / "ws").mkdir(parents=True)
    config = conf / "quorum.toml"
    config.write_text('[tools]\nworkspace = "ws"\n[storage]\npath = "logs/runs.db"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # --config ../conf/quorum.toml, from another directory
    settings, _ = load(elsewhere, config=Path(os.path.relpath(config, elsewhere)))
    assert settings.section(ToolsSettings).workspace == conf / "ws"
    assert settings.section(StorageSettings).path == conf / "logs" / "runs.db"


def test_a_workspace_that_does_not_exist_names_the_key_and_the_file(tmp_path: Path) -> None:
    config = tmp_path / "q.toml"
    config.write_text('[tools]\nworkspace = "nowhere"\n')
    with pytest.raises(ConfigurationError, match=r"q.toml: tools.workspace: '.*nowhere' does not exist"):
        load(tmp_path, config=config)
    (tmp_path / "file").write_text("x")
    config.write_text('[tools]\nworkspace = "file"\n')
    with pytest.raises(ConfigurationError, match="is not a directory"):
        load(tmp_path, config=config)


@pytest.mark.parametrize("kind", ["directory", "fifo"])
@pytest.mark.parametrize("where", ["local", "explicit"])
def test_a_config_path_that_is_not_a_regular_file_is_an_error(tmp_path: Path, kind: str, where: str) -> None:
    path = tmp_path / "quorum.toml"
    if kind == "directory":
        path.mkdir()
    else:
        os.mkfifo(path)
    shown = "a directory" if kind == "directory" else "a FIFO"
    with pytest.raises(ConfigurationError, match=rf"not a regular file \({shown}\)"):
        load(tmp_path, config=path if where == "explicit" else None)


def test_a_user_config_that_is_a_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "user" / "quorum.toml").mkdir(parents=True)
    with pytest.raises(ConfigurationError, match="not a regular file"):
        collect_layers(cwd=tmp_path, env={}, user_config_dir=tmp_path / "user")


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "quorum.toml").write_bytes(b"\xef\xbb\xbf[agent]\nmax_tool_turns = 3\n")
    assert load(tmp_path)[0].agent.max_tool_turns == 3


def test_invalid_utf8_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "quorum.toml").write_bytes(b'[agent]\nsystem_prompt = "\xff\xfe"\n')
    with pytest.raises(ConfigurationError, match="quorum.toml: not UTF-8 text"):
        load(tmp_path)


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 5000 + "]" * 5000,  # recursion inside the TOML parser
        "[" + ".".join(["t"] * 5000) + "]\nx = 1",  # parsed iteratively, then too deep to merge
        "a = " + "{ b = " * 3000 + "1" + " }" * 3000,
    ],
    ids=["arrays", "dotted-tables", "inline-tables"],
)
def test_toml_nested_too_deeply_is_an_error(tmp_path: Path, text: str) -> None:
    (tmp_path / "quorum.toml").write_text(text)
    with pytest.raises(ConfigurationError, match="nested too deeply"):
        load(tmp_path)


def test_deep_json_in_a_variable_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="QUORUM_REVIEW__REVIEWERS"):
        load(tmp_path, {"QUORUM_REVIEW__REVIEWERS": "[" * 5000 + "]" * 5000})
