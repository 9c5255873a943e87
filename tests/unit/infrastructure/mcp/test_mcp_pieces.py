"""Pure parts of the MCP source: names, risk, results, variable expansion, the tool-list cache."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.types import (
    AudioContent,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from quorum.domain.errors import ToolSourceError
from quorum.domain.tools import RiskLevel, ToolDefinition
from quorum.infrastructure.mcp.cache import ToolListCache
from quorum.infrastructure.mcp.naming import namespace_all, namespaced
from quorum.infrastructure.mcp.results import outcome_from_result
from quorum.infrastructure.mcp.server_tools import ServerTool, expand_variables
from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.mcp.source import tool_risk

PNG_1PX = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def test_names_are_namespaced_and_sanitised() -> None:
    assert namespaced("time", "get_current_time") == "mcp__time__get_current_time"
    assert namespaced("my server", "read.file/v2") == "mcp__my_server__read_file_v2"


def test_long_names_are_cut_to_64_with_a_stable_hash() -> None:
    long = namespaced("server", "x" * 100)
    assert len(long) == 64
    assert re.fullmatch(r"mcp__server__x+_[0-9a-f]{8}", long)
    assert namespaced("server", "x" * 100) == long
    assert namespaced("server", "x" * 101) != long


@given(st.text(min_size=1, max_size=40), st.text(min_size=1, max_size=120))
def test_every_namespaced_name_is_a_valid_tool_name(server: str, tool: str) -> None:
    ToolDefinition(name=namespaced(server, tool))


def test_clashing_sanitised_names_stay_distinct_and_deterministic() -> None:
    first = namespace_all("s", ["a.b", "a_b", "c"])
    assert sorted(first.values()) == ["a.b", "a_b", "c"]
    assert len(first) == 3
    assert namespace_all("s", ["c", "a_b", "a.b"]) == first


def tool(read_only: bool | None = None, destructive: bool | None = None) -> ServerTool:
    return ServerTool("t", "", {"type": "object"}, read_only=read_only, destructive=destructive)


STDIO = McpServerSettings(command="x")


@pytest.mark.parametrize(
    ("annotations", "server_risk", "expected"),
    [
        ((True, None), None, RiskLevel.LOW),
        ((True, False), None, RiskLevel.LOW),
        ((True, True), None, RiskLevel.HIGH),  # read-only but destructive: contradictory, not trusted
        ((False, None), None, RiskLevel.HIGH),
        ((None, None), None, RiskLevel.HIGH),
        ((None, None), "low", RiskLevel.LOW),
        ((False, True), "low", RiskLevel.LOW),
        ((True, None), "high", RiskLevel.LOW),  # annotations come before the server default
    ],
)
def test_risk_from_annotations_then_server_then_high(
    annotations: tuple[bool | None, bool | None], server_risk: str | None, expected: RiskLevel
) -> None:
    settings = McpServerSettings(command="x", risk=server_risk)  # type: ignore[arg-type]
    assessment = tool_risk(tool(*annotations), settings)
    assert assessment.level is expected
    assert assessment.reason


def test_text_is_joined_and_every_block_is_named() -> None:
    result = CallToolResult(
        content=[
            TextContent(type="text", text="first"),
            ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
            AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(uri="file:///a.txt", mime_type="text/plain", text="héllo"),
            ),
            ResourceLink(type="resource_link", uri="file:///b.bin", name="b", mime_type="application/x", size=9),
            TextContent(type="text", text="last"),
        ]
    )
    outcome = outcome_from_result(result, server="srv")
    assert outcome.output.splitlines() == [
        "first",
        "[image: image/png, 8 bytes]",
        "[audio: audio/wav, 3 bytes, not shown: models take no audio here]",
        "[resource file:///a.txt (text/plain)]",
        "héllo",
        "[resource link b <file:///b.bin> application/x, 9 bytes]",
        "last",
        '(linked resources can be read with mcp_read_resource(server="srv", uri=...))',
    ]
    assert [(i.media_type, i.size) for i in outcome.images] == [("image/png", 8)]


def test_structured_content_alone_is_shown_as_json_and_is_error_is_kept() -> None:
    structured = CallToolResult(content=[], structured_content={"b": 1, "a": [True]})
    assert outcome_from_result(structured).output == 'structured content: {"a": [true], "b": 1}'
    error = CallToolResult(content=[TextContent(type="text", text="bad input")], is_error=True)
    outcome = outcome_from_result(error)
    assert outcome.is_error and outcome.output == "bad input"
    assert outcome_from_result(CallToolResult(content=[])).output == "(no output)"


def test_variables_are_expanded_from_the_given_environment() -> None:
    env = {"TOKEN": "abc", "HOST": "h"}
    out = expand_variables({"AUTH": "Bearer ${TOKEN}", "URL": "${HOST}:${HOST}", "PLAIN": "$TOKEN"}, env, where="w")
    assert out == {"AUTH": "Bearer abc", "URL": "h:h", "PLAIN": "$TOKEN"}


def test_a_missing_variable_names_the_key() -> None:
    with pytest.raises(ToolSourceError, match=r"mcp\.servers\.gh\.env\.GITHUB_TOKEN uses \$\{GH_TOKEN\}"):
        expand_variables({"GITHUB_TOKEN": "${GH_TOKEN}"}, {}, where="mcp.servers.gh.env")


def test_cache_round_trip_and_invalidation(tmp_path: Path) -> None:
    cache = ToolListCache(tmp_path / "c")
    settings = McpServerSettings(command="srv", args=["--a"])
    assert cache.load("s", settings) is None
    tools = [tool(True, False).to_dict()]
    cache.store("s", settings, tools)
    assert cache.load("s", settings) == tools
    assert [ServerTool.from_dict(d) for d in cache.load("s", settings) or []] == [tool(True, False)]
    assert cache.load("s", McpServerSettings(command="srv", args=["--b"])) is None
    (tmp_path / "c" / "s.json").write_text("not json")
    assert cache.load("s", settings) is None


def test_structured_content_that_only_wraps_the_text_or_the_blocks_is_not_sent_again() -> None:
    text = "line one\nline two " * 50
    wrapped = CallToolResult(content=[TextContent(type="text", text=text)], structured_content={"content": text})
    assert outcome_from_result(wrapped).output == text  # server-filesystem's read_text_file: once
    image = ImageContent(type="image", data=base64.b64encode(PNG_1PX).decode(), mime_type="image/png")
    media = CallToolResult(
        content=[image], structured_content={"content": [image.model_dump(by_alias=True, exclude_none=True)]}
    )
    outcome = outcome_from_result(media)  # read_media_file: the image block, and nothing else
    assert outcome.output.startswith("[image: image/png") and "structured" not in outcome.output
    assert len(outcome.images) == 1


def test_base64_inside_structured_content_never_reaches_the_model_as_text() -> None:
    data = base64.b64encode(PNG_1PX).decode()
    result = CallToolResult(
        content=[TextContent(type="text", text="here is the thumbnail")],
        structured_content={
            "thumb": {"mimeType": "image/png", "data": data},
            "uri": "data:image/png;base64," + data,
            "blob": base64.b64encode(bytes(range(256))).decode(),
            "data": "plain",
        },
    )
    output = outcome_from_result(result).output
    assert data[:12] not in output and "base64 data: image/png" in output
    assert "[base64 data: unknown type, 256 bytes, not shown]" in output and '"data": "plain"' in output
