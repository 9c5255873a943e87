"""AGENTS.md, prompt commands and skills through ``quorum run`` against a local OpenAI server (the real SDK).

The server records each request: what the model got is read from the wire.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn


@pytest.fixture
def wire() -> Iterator[ScriptedHttpServer]:
    server = openai_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def repo(cli: Cli, wire: ScriptedHttpServer) -> Cli:
    """``cli``'s workspace as a repository root with ``app/`` below it, configured for the local model."""
    (cli.workspace / ".git").mkdir()
    (cli.workspace / "app").mkdir()
    cli.write(
        "quorum.toml",
        f'model = "local:m"\n[providers.local]\ntype = "openai"\nbase_url = "{wire.url}/v1"\napi_key = "x"\n',
    )
    return cli


def _system(body: dict[str, Any]) -> str:
    return str(body["messages"][0]["content"])


def _user(body: dict[str, Any]) -> str:
    return next(str(m["content"]) for m in body["messages"] if m["role"] == "user")


def _run(cli: Cli, wire: ScriptedHttpServer, *args: str, turns: int = 1) -> list[dict[str, Any]]:
    wire.enqueue(*[Turn(text="done")] * turns)
    result = cli("run", "--json", "--no-log", *args)
    assert result.code == 0, result.stderr
    return wire.bodies()


# -- AGENTS.md ----------------------------------------------------------------------------------


def test_root_and_workspace_agents_md_are_in_the_first_request_root_first(repo: Cli, wire: ScriptedHttpServer) -> None:
    repo.write("AGENTS.md", "ROOT-MARKER: use tabs")
    repo.write("app/AGENTS.md", "APP-MARKER: run make test")

    (first,) = _run(repo, wire, "-w", "app", "hi")

    system = _system(first)
    assert system.index("ROOT-MARKER") < system.index("APP-MARKER")
    assert "## AGENTS.md\n\nROOT-MARKER" in system and "## app/AGENTS.md\n\nAPP-MARKER" in system


def test_claude_md_is_read_where_there_is_no_agents_md(repo: Cli, wire: ScriptedHttpServer) -> None:
    repo.write("AGENTS.md", "ROOT-MARKER")
    repo.write("app/CLAUDE.md", "CLAUDE-MARKER")
    (first,) = _run(repo, wire, "-w", "app", "hi")
    assert "## app/CLAUDE.md\n\nCLAUDE-MARKER" in _system(first)


def test_the_lean_profile_gets_them_too(repo: Cli, wire: ScriptedHttpServer) -> None:
    repo.write("AGENTS.md", "ROOT-MARKER")
    repo.write("quorum.toml", repo.workspace.joinpath("quorum.toml").read_text() + '[agent]\ntools_profile = "lean"\n')
    (first,) = _run(repo, wire, "hi")
    assert _system(first).startswith("You are a software agent") and "ROOT-MARKER" in _system(first)


def test_off_with_the_flag_and_with_the_config_key(repo: Cli, wire: ScriptedHttpServer) -> None:
    repo.write("AGENTS.md", "ROOT-MARKER")
    (flagged,) = _run(repo, wire, "--no-project-instructions", "hi")
    assert "ROOT-MARKER" not in _system(flagged)
    repo.write(
        "quorum.toml", repo.workspace.joinpath("quorum.toml").read_text() + "[agent]\nproject_instructions = false\n"
    )
    configured = _run(repo, wire, "hi")[-1]
    assert "ROOT-MARKER" not in _system(configured) and "Project instructions" not in _system(configured)


def test_the_first_human_line_and_doctor_name_the_files_read(repo: Cli, wire: ScriptedHttpServer) -> None:
    repo.write("AGENTS.md", "ROOT-MARKER")
    repo.write("app/CLAUDE.md", "CLAUDE-MARKER")
    wire.enqueue(Turn(text="done"))
    result = repo("run", "--no-log", "-w", "app", "hi")
    assert result.code == 0, result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith("● run ") and first.endswith("· instructions: AGENTS.md, app/CLAUDE.md")
    doctor = repo("doctor", "--json")
    assert '"check": "instructions", "status": "ok", "detail": "AGENTS.md"' in doctor.stdout


def test_a_linked_agents_md_leading_outside_is_not_read_and_a_huge_one_is_cut(
    repo: Cli, wire: ScriptedHttpServer, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-MARKER")
    (repo.workspace / "AGENTS.md").symlink_to(secret)
    repo.write("app/AGENTS.md", "APP-START" + "x" * 200_000 + "APP-END")

    (first,) = _run(repo, wire, "-w", "app", "hi")

    system = _system(first)
    assert "SECRET-MARKER" not in system
    assert "APP-START" in system and "APP-END" not in system and "cut at 32 KiB" in system
    doctor = repo("doctor", "--json")  # the configured workspace: the root, whose AGENTS.md leads outside
    assert "links outside the repository" in doctor.stdout


def test_a_fifo_named_agents_md_does_not_hang_the_run(repo: Cli, wire: ScriptedHttpServer) -> None:
    os.mkfifo(repo.workspace / "AGENTS.md")
    (first,) = _run(repo, wire, "hi")
    assert "Project instructions" not in _system(first)


# -- prompt commands ----------------------------------------------------------------------------


def test_run_sends_the_command_body_with_the_arguments(repo: Cli, wire: ScriptedHttpServer) -> None:
    repo.write(
        ".quorum/commands/fix-todo.md", "---\ndescription: Fix TODOs\n---\nFix every TODO in $ARGUMENTS, then test.\n"
    )
    (first,) = _run(repo, wire, "/fix-todo app.py")
    assert _user(first) == "Fix every TODO in app.py, then test."


def test_a_user_command_with_its_model(repo: Cli, wire: ScriptedHttpServer) -> None:
    config = Path(repo.env["XDG_CONFIG_HOME"]) / "quorum" / "commands"
    config.mkdir(parents=True)
    (config / "explain.md").write_text("---\nmodel: local:other\n---\nExplain $ARGUMENTS briefly.\n")
    (first,) = _run(repo, wire, "/explain", "the", "parser")
    assert _user(first) == "Explain the parser briefly." and first["model"] == "other"


def test_unknown_and_refused_commands_are_errors_and_nothing_is_sent(repo: Cli, wire: ScriptedHttpServer) -> None:
    repo.write(".quorum/commands/model.md", "pick a model")
    unknown = repo("run", "--no-log", "/nope x")
    assert unknown.code == 2 and "unknown command /nope" in unknown.stderr and "'//'" in unknown.stderr
    refused = repo("run", "--no-log", "/model x")
    assert refused.code == 2 and "/model is a built-in command" in refused.stderr
    assert wire.bodies() == []
    (escaped,) = _run(repo, wire, "//nope as text")
    assert _user(escaped) == "/nope as text"


def test_commands_list(repo: Cli) -> None:
    repo.write(".quorum/commands/fix-todo.md", "---\ndescription: Fix TODOs\nplan: true\n---\nbody\n")
    listed = repo("commands", "list", "--json")
    assert listed.code == 0 and '"name": "fix-todo"' in listed.stdout and '"plan": true' in listed.stdout


# -- skills -------------------------------------------------------------------------------------


def test_skills_only_name_and_description_first_the_body_in_the_load_skill_result(
    repo: Cli, wire: ScriptedHttpServer
) -> None:
    repo.write(
        ".agents/skills/release/SKILL.md",
        "---\nname: release\ndescription: Cut a release of the package\n---\nBODY-MARKER: bump, tag, push.\n",
    )
    repo.write(".agents/skills/release/scripts/tag.sh", "git tag")
    wire.enqueue(Turn(calls=[Call("c1", "load_skill", {"name": "release"})]), Turn(text="done"))
    result = repo("run", "--json", "--no-log", "release it")
    assert result.code == 0, result.stderr

    first, second = wire.bodies()
    assert "- release: Cut a release of the package" in _system(first)
    assert "BODY-MARKER" not in str(first)
    assert "load_skill" in [tool["function"]["name"] for tool in first["tools"]]
    (answer,) = [m for m in second["messages"] if m["role"] == "tool"]
    assert "BODY-MARKER: bump, tag, push." in answer["content"]
    assert ".agents/skills/release/scripts/tag.sh" in answer["content"]
    assert "BODY-MARKER" not in _system(second)


def test_no_skills_no_tool_and_no_section(repo: Cli, wire: ScriptedHttpServer) -> None:
    (first,) = _run(repo, wire, "hi")
    assert "load_skill" not in str(first) and "# Skills" not in _system(first)


def test_skills_list(repo: Cli) -> None:
    repo.write(".quorum/skills/lint/SKILL.md", "---\nname: lint\ndescription: Lint the code\n---\nbody")
    listed = repo("skills", "list")
    assert listed.code == 0 and "lint" in listed.stdout and "Lint the code" in listed.stdout


def test_a_command_with_plan_true_runs_in_plan_mode(repo: Cli, wire: ScriptedHttpServer) -> None:
    repo.write(".quorum/commands/refactor.md", "---\nplan: true\n---\nRefactor $ARGUMENTS.\n")
    repo.write(".quorum/commands/quick.md", "Tidy $ARGUMENTS.\n")
    wire.enqueue(*[Turn(text="no plan")] * 8)
    repo("run", "--json", "--no-log", "/refactor app.py")
    planned = wire.bodies()[0]
    assert _user(planned) == "Refactor app.py." and "propose_plan" in str(planned["tools"])
    (plain,) = _run(repo, wire, "/quick app.py")[len(wire.bodies()) - 1 :]
    assert _user(plain) == "Tidy app.py." and "propose_plan" not in str(plain["tools"])
