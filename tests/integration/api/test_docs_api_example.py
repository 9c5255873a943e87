"""The Python API's full example (docs/python-api.md, "The whole surface"), run as written against local wire servers.

The main model speaks OpenAI's wire (``OPENAI_BASE_URL``), the reviewer on the panel Anthropic's
(``ANTHROPIC_BASE_URL``); the MCP server is the real ``mcp-server-time``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.docs import DOCS, marked_block
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Turn


def test_the_python_api_example_runs_as_written(
    openai_wire: ScriptedHttpServer, anthropic_wire: ScriptedHttpServer, tmp_path: Path
) -> None:
    verdict = Turn(calls=(Call("v", "submit_verdict", {"verdict": "approve", "reason": "a weather lookup"}),))
    anthropic_wire.enqueue(verdict, verdict)
    openai_wire.enqueue(
        Turn(calls=(Call("w1", "weather", {"city": "Paris"}), Call("l1", "lookup", {"key": "paris"}))),
        Turn(text="Light layers and a jacket."),
        Turn(calls=(Call("w2", "weather", {"city": "Oslo", "unit": "f"}),)),
        Turn(text="A warm coat."),
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUORUM_", "OPENAI_", "ANTHROPIC_"))}
    env.update(
        OPENAI_API_KEY="sk-test-not-a-key",
        OPENAI_BASE_URL=f"{openai_wire.url}/v1",
        ANTHROPIC_API_KEY="sk-ant-test-not-a-key",
        ANTHROPIC_BASE_URL=anthropic_wire.url,
        HOME=str(tmp_path),
    )
    done = subprocess.run(
        [sys.executable, "-c", marked_block(DOCS / "python-api.md", "api")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "end_turn Light layers and a jacket."
    assert lines[1] == "run_started" and lines[-1] == "run_finished"
    assert "tool_result" in lines and "review" in lines
    first = openai_wire.bodies()[1]["messages"]
    results = {m["tool_call_id"]: m["content"] for m in first if m["role"] == "tool"}
    assert results["w1"] == "18 degrees C and sunny in Paris"  # approved by the reviewer panel
    assert '"note":"bring a jacket"' in results["l1"]  # a low-risk sync tool, JSON-encoded
    assert openai_wire.remaining == 0 and anthropic_wire.remaining == 0  # both weather calls went to the panel
    offered = [t["function"]["name"] for t in openai_wire.bodies()[0]["tools"]]
    assert {"weather", "lookup", "mcp__time__get_current_time"} <= set(offered)
