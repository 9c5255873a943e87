"""Setup a user expects: keys, aliases, models, init, the packaged demo (the CLI as a subprocess)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.e2e.conftest import Cli
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Raw, Turn

KEY = "sk-stored-0123456789abcdef"


@pytest.fixture
def setup_cli(cli: Cli) -> Cli:
    """The isolated CLI with the key file forced: the real keyring is never touched."""
    cli.env["QUORUM_KEYS_BACKEND"] = "file"
    return cli


def key_file(cli: Cli) -> Path:
    return Path(cli.env["XDG_CONFIG_HOME"]) / "quorum" / "keys.json"


def test_keys_set_list_path_rm_never_print_the_value(setup_cli: Cli) -> None:
    stored = setup_cli("keys", "set", "openai", input=KEY + "\n")
    assert stored.code == 0, stored.stderr
    assert KEY not in stored.stdout + stored.stderr
    path = key_file(setup_cli)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    listed = setup_cli("keys", "list")
    assert listed.stdout == "openai\tkey file\n" and KEY not in listed.stderr
    assert setup_cli("keys", "path").stdout.strip() == str(path)
    assert setup_cli("keys", "rm", "openai").code == 0
    assert setup_cli("keys", "list").stdout == ""
    assert setup_cli("keys", "rm", "openai").code == 1


def test_keys_set_refuses_an_empty_key(setup_cli: Cli) -> None:
    result = setup_cli("keys", "set", "openai", input="\n")
    assert result.code == 2 and "nothing was stored" in result.stderr
    assert not key_file(setup_cli).exists()


def test_a_stored_key_is_used_shown_by_source_and_redacted(setup_cli: Cli, openai_wire: ScriptedHttpServer) -> None:
    setup_cli.write("quorum.toml", f'[providers.local]\ntype = "openai"\nbase_url = "{openai_wire.url}/v1"\n')
    setup_cli("keys", "set", "local", input=KEY)
    setup_cli.write("notes.txt", f"the key is {KEY}\n")
    openai_wire.enqueue(Turn(calls=[Call("c1", "read_file", {"path": "notes.txt"})]), Turn(text="done"))
    result = setup_cli("run", "--model", "local:m", "--json", "read notes")
    assert result.code == 0, result.stderr
    assert openai_wire.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in result.stdout and "[REDACTED:keys.local]" in result.stdout
    shown = setup_cli("config", "show")
    assert "# key of provider local: key file" in shown.stdout and KEY not in shown.stdout
    from_env = setup_cli("config", "show", "--json", OPENAI_API_KEY="sk-env-0123456789")
    # the env var comes first: [providers.local] reads OPENAI_API_KEY too (its api_key_env)
    assert json.loads(from_env.stdout)["keys"] == {"local": "env OPENAI_API_KEY", "openai": "env OPENAI_API_KEY"}


def test_config_show_names_the_run_log(setup_cli: Cli) -> None:
    shown = setup_cli("config", "show", "--json")
    assert json.loads(shown.stdout)["run_log"] == setup_cli.env["QUORUM_DB"]


def test_an_alias_and_a_bare_known_model_name_open_the_configured_model(setup_cli: Cli) -> None:
    setup_cli.write(
        "quorum.toml",
        '[aliases]\nfast = "scripted:demo"\n\n[review]\nreviewers = ["scripted:demo#approve"]\n',
    )
    result = setup_cli("run", "--model", "fast", "--json", "--yes", "hi")
    assert result.code == 0, result.stderr
    bare = setup_cli("run", "--model", "demo#approve", "--json", "hi")  # the reviewer's script, one turn long
    assert "scripted model 'demo#approve' ran out of script" in bare.stderr
    unknown = setup_cli("run", "--model", "nosuch", "--json", "hi")
    assert unknown.code == 2 and "[aliases]" in unknown.stderr


def test_an_alias_with_a_colon_is_a_configuration_error(setup_cli: Cli) -> None:
    setup_cli.write("quorum.toml", '[aliases]\n"a:b" = "openai:gpt-4.1-mini"\n')
    result = setup_cli("config", "validate")
    assert result.code == 2 and "aliases" in result.stderr


def test_models_lists_the_endpoint_configured_models_and_aliases(
    setup_cli: Cli, openai_wire: ScriptedHttpServer
) -> None:
    setup_cli.write(
        "quorum.toml",
        f'model = "local:configured-1"\n[aliases]\nfast = "local:m-2"\n'
        f'[providers.local]\ntype = "openai"\nbase_url = "{openai_wire.url}/v1"\n'
        '[providers.broken]\ntype = "anthropic"\nbase_url = "http://127.0.0.1:9"\nmax_retries = 0\n',
    )
    models = {
        "object": "list",
        "data": [{"id": m, "object": "model", "created": 0, "owned_by": "x"} for m in ("m-2", "m-1")],
    }
    openai_wire.enqueue(Raw(body=json.dumps(models).encode()))
    result = setup_cli("models", "--json")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert {"provider": "local", "model": "local:m-1", "source": "endpoint"} in rows
    assert {"provider": "local", "model": "local:configured-1", "source": "configured"} in rows
    assert {"alias": "fast", "model": "local:m-2"} in rows
    assert openai_wire.requests[0].path == "/v1/models"
    problems = result.stderr.strip().splitlines()
    assert len(problems) == 1 and problems[0].startswith("quorum: broken: ") and "Traceback" not in result.stderr
    assert result.code == 0


def test_models_offline_needs_no_server(setup_cli: Cli) -> None:
    setup_cli.write("quorum.toml", '[aliases]\nfast = "openai:gpt-4.1-mini"\n')
    result = setup_cli("models", "--offline")
    assert (
        result.code == 0 and "openai:gpt-4.1-mini" in result.stdout and "alias of openai:gpt-4.1-mini" in result.stdout
    )


def test_init_writes_a_valid_commented_config_and_refuses_to_overwrite(setup_cli: Cli) -> None:
    written = setup_cli("init", "--provider", "anthropic")
    assert written.code == 0, written.stderr
    text = (setup_cli.workspace / "quorum.toml").read_text()
    assert 'model = "anthropic:claude-sonnet-4-5"' in text and "# " in text
    assert setup_cli("config", "validate").code == 0
    again = setup_cli("init", "--provider", "openai")
    assert again.code == 2 and "--force" in again.stderr
    forced = setup_cli("init", "--model", "scripted:demo", "--force")
    assert forced.code == 0 and 'model = "scripted:demo"' in (setup_cli.workspace / "quorum.toml").read_text()
    assert setup_cli("run", "--json", "--yes", "hi").code == 0


def test_init_without_a_terminal_needs_a_provider(setup_cli: Cli) -> None:
    result = setup_cli("init")
    assert result.code == 2 and "--provider" in result.stderr
    assert not (setup_cli.workspace / "quorum.toml").exists()


def test_the_packaged_demo_runs_and_help_points_to_it(setup_cli: Cli) -> None:
    result = setup_cli("run", "--model", "scripted:demo", "--json", "Summarise")
    assert result.events()[-1]["type"] == "run_finished"
    assert "scripted:demo" in setup_cli("--help").stdout
    assert "--model scripted:demo" in setup_cli("run", "hi").stderr


def recorded_runs(cli: Cli) -> list[str]:
    for task in ("first task", "second task about llamas"):
        assert cli("run", "--model", "scripted:demo", "--json", "--yes", task).code == 0
    return [json.loads(line)["run_id"] for line in cli("logs", "list", "--json").stdout.splitlines()]


def test_logs_show_takes_a_unique_prefix_and_lists_an_ambiguous_one(setup_cli: Cli) -> None:
    newest, oldest = recorded_runs(setup_cli)
    shown = setup_cli("logs", "show", "--json", newest[:6])
    assert shown.code == 0 and json.loads(shown.stdout.splitlines()[0])["run_id"] == newest
    assert setup_cli("logs", "show", "zzzz").code == 2 and setup_cli("logs", "show", "").code == 2
    shared = newest[: next((i for i, (a, b) in enumerate(zip(newest, oldest, strict=True)) if a != b), 0)]
    if shared:  # random ids: often they share a first character (the store test pins this down)
        ambiguous = setup_cli("logs", "show", shared)
        assert ambiguous.code == 2 and newest in ambiguous.stderr and oldest in ambiguous.stderr


def test_logs_list_filters_and_names_the_database(setup_cli: Cli) -> None:
    newest, _oldest = recorded_runs(setup_cli)
    listed = setup_cli("logs", "list")
    assert f"# run log: {setup_cli.env['QUORUM_DB']}" in listed.stderr
    grep = setup_cli("logs", "list", "--json", "--grep", "LLAMAS")
    assert [json.loads(line)["run_id"] for line in grep.stdout.splitlines()] == [newest]
    assert setup_cli("logs", "list", "--json", "--model", "scripted:demo").stdout.count("\n") == 2
    assert setup_cli("logs", "list", "--json", "--model", "openai").stdout == ""
    assert setup_cli("logs", "list", "--json", "--since", "2999-01-01").stdout == ""
    assert setup_cli("logs", "list", "--json", "--since", "2000-01-01").stdout.count("\n") == 2
    assert setup_cli("logs", "list", "--since", "yesterday").code == 2


def test_logs_rm_asks_refuses_without_a_terminal_and_deletes_with_yes(setup_cli: Cli) -> None:
    newest, oldest = recorded_runs(setup_cli)
    refused = setup_cli("logs", "rm", newest)
    assert refused.code == 2 and "--yes" in refused.stderr
    deleted = setup_cli("logs", "rm", "--yes", newest[:8])
    assert deleted.code == 0 and "deleted 1 run" in deleted.stderr
    remaining = [json.loads(line)["run_id"] for line in setup_cli("logs", "list", "--json").stdout.splitlines()]
    assert remaining == [oldest]
    assert setup_cli("logs", "show", newest).code == 2


def test_a_run_records_the_model_an_alias_stands_for(cli: Cli) -> None:
    cli.write("quorum.toml", '[aliases]\nfast = "test"\n')
    result = cli("run", "--json", "--no-log", "--model", "fast", "hello")
    assert result.code == 0, result.stderr
    assert result.events()[0]["model"] == "test"
