"""The lean tool profile (issue 34): short descriptions, required parameters only, the whole schema still checked."""

from __future__ import annotations

import json
from typing import Any

from quorum.application.compaction import BYTES_PER_TOKEN
from quorum.application.execution import DEFAULT_SYSTEM_PROMPT, LEAN_SYSTEM_PROMPT
from quorum.domain.tool_profile import LEAN_WINDOW, choose, first_sentence, lean
from quorum.domain.tools import ToolDefinition, ToolParameter
from quorum.infrastructure.providers.openai.wire import tools_to_wire
from quorum.infrastructure.tools.builtin import BUILTIN_TOOLS
from quorum.infrastructure.tools.schema import JsonSchemaToolConverter
from tests.fakes import calls, text
from tests.unit.application.conftest import Harness

PARAMS = (
    ToolParameter(name="path", description="File to read. Relative to the workspace.", param_type="path"),
    ToolParameter(name="limit", description="How many lines.", param_type="integer", required=False),
)


def test_the_profile_is_the_configured_one_else_lean_for_a_small_window() -> None:
    assert choose("full", 4_096) == "full" and choose("lean", None) == "lean"
    assert choose(None, LEAN_WINDOW) == "lean" and choose(None, 2_000) == "lean"
    assert choose(None, LEAN_WINDOW + 1) == "full" and choose(None, None) == "full"


def test_a_lean_tool_keeps_its_brief_and_its_required_parameters() -> None:
    tool = ToolDefinition(name="read", description="Read a file. It may be long.", parameters=PARAMS)
    assert lean(tool).description == "Read a file."
    assert [p.name for p in lean(tool).parameters] == ["path"] and lean(tool).parameters[0].description == ""
    assert lean(tool.model_copy(update={"brief": "Read."})).description == "Read."
    schema = {
        "type": "object",
        "properties": {"q": {"type": "string", "description": "The query. Long words."}, "n": {"type": "integer"}},
        "required": ["q"],
    }
    mcp = ToolDefinition(name="search", description="Search.", input_schema=schema)
    assert lean(mcp).input_schema == {**schema, "properties": {"q": {"type": "string", "description": "The query."}}}
    assert first_sentence("x" * 300).endswith("…") and len(first_sentence("x" * 300)) == 120


def _tokens_before_the_task(lean_profile: bool) -> int:
    converter = JsonSchemaToolConverter()
    tools = [lean(tool) if lean_profile else tool for tool in BUILTIN_TOOLS]
    prompt = (LEAN_SYSTEM_PROMPT if lean_profile else DEFAULT_SYSTEM_PROMPT).format(workspace="/home/user/project")
    wire = tools_to_wire([converter.tool_to_schema(tool) for tool in tools])
    body = json.dumps({"messages": [{"role": "system", "content": prompt}], "tools": wire}, ensure_ascii=False)
    return len(body.encode()) // BYTES_PER_TOKEN


def test_the_lean_profile_of_the_built_in_tools_stays_under_600_tokens_before_the_task() -> None:
    lean_tokens, full_tokens = _tokens_before_the_task(True), _tokens_before_the_task(False)
    assert lean_tokens <= 600 and lean_tokens < full_tokens * 0.6, (lean_tokens, full_tokens)


async def read(args: dict[str, Any]) -> str:
    return f"read {args['path']} limit {args.get('limit')}"


async def test_a_lean_run_offers_the_lean_schemas_and_still_takes_an_optional_argument(h: Harness) -> None:
    h.tools.add("read", read, params=PARAMS)
    h.session.script = [calls(("read", {"path": "a.txt", "limit": 3})), calls(("read", {"path": 7})), text("done")]
    result = await h.run(tools_profile="lean")
    assert result.output == "done"
    offered = h.session.sent[0][1][1]
    assert offered[0]["description"] == "read tool"
    assert list(offered[0]["input_schema"]["properties"]) == ["path"]
    assert h.results_sent(0)[0].output == "read a.txt limit 3"  # checked against the whole schema
    assert h.results_sent(1)[0].is_error  # a wrong type is still refused


async def test_a_full_run_offers_every_parameter(h: Harness) -> None:
    h.tools.add("read", read, params=PARAMS)
    h.session.script = [text("done")]
    await h.run(tools_profile="full")
    assert list(h.session.sent[0][1][1][0]["input_schema"]["properties"]) == ["path", "limit"]
