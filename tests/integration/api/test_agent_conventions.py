"""``Agent(project_instructions=...)``: AGENTS.md reaches the model only when asked (``config=None`` reads no file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quorum import Agent
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Turn


def _local(wire: ScriptedHttpServer) -> dict[str, dict[str, Any]]:
    return {"local": {"type": "openai", "base_url": f"{wire.url}/v1", "api_key": "x", "max_retries": 0}}


async def _system_prompt(wire: ScriptedHttpServer, workspace: Path, **kwargs: Any) -> str:
    wire.enqueue(Turn(text="done"))
    async with Agent("local:m", providers=_local(wire), workspace=workspace, stream=False, **kwargs) as agent:
        result = await agent.run("hi")
    assert result.stop_reason == "end_turn", result.detail
    return str(wire.bodies()[-1]["messages"][0]["content"])


async def test_agents_md_only_when_asked(openai_wire: ScriptedHttpServer, tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("ROOT-MARKER")
    assert "ROOT-MARKER" not in await _system_prompt(openai_wire, tmp_path)
    assert "## AGENTS.md\n\nROOT-MARKER" in await _system_prompt(openai_wire, tmp_path, project_instructions=True)


async def test_from_config_reads_them_and_offers_load_skill(
    openai_wire: ScriptedHttpServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the CLI's layering reads ./quorum.toml: this one has none
    (tmp_path / "AGENTS.md").write_text("ROOT-MARKER")
    skill = tmp_path / ".quorum" / "skills" / "lint"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: lint\ndescription: Lint the code\n---\nLINT-BODY")
    config = tmp_path / "agent.toml"
    config.write_text("")
    openai_wire.enqueue(Turn(text="done"))
    agent = Agent.from_config(config, model="local:m", providers=_local(openai_wire), workspace=tmp_path, stream=False)
    async with agent:
        await agent.run("hi")
    body = openai_wire.bodies()[-1]
    system = str(body["messages"][0]["content"])
    assert "ROOT-MARKER" in system and "- lint: Lint the code" in system and "LINT-BODY" not in system
    assert "load_skill" in [tool["function"]["name"] for tool in body["tools"]]
