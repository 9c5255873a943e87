"""The CI recipe of docs/ci.md, run as written: its files, and its workflow's run steps in bash.

The workflow's agent step (``quorum run --no-human --output-schema …``) and its report step run
with the page's ``ci.toml`` and ``result.schema.json`` in a workspace, the models on local scripted
OpenAI and Anthropic servers (the SDKs read ``OPENAI_BASE_URL`` and ``ANTHROPIC_BASE_URL``; the
page's keys come from ``secrets``, given dummy values here). The panel of both providers approves
the write, the result matches the schema, and the report step writes the step summary.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from tests.e2e.conftest import Cli
from tests.support.anthropic_server import anthropic_server
from tests.support.docs import DOCS, marked_block
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn

PAGE = DOCS / "ci.md"
CONFIG = ".github/quorum/ci.toml"
SCHEMA = ".github/quorum/result.schema.json"


def _steps() -> list[dict[str, Any]]:
    workflow = yaml.safe_load(marked_block(PAGE, "ci-workflow"))
    (job,) = workflow["jobs"].values()
    steps: list[dict[str, Any]] = job["steps"]
    return [step for step in steps if "run" in step and not step["run"].startswith("pip install")]


def _env(cli: Cli, step: dict[str, Any], **extra: str) -> dict[str, str]:
    env = {k: v for k, v in cli.env.items() if k != "QUORUM_TRUST_WORKSPACE"}  # the recipe needs no trust
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # quorum, python
    for name, value in (step.get("env") or {}).items():
        env[name] = re.sub(r"\$\{\{\s*secrets\.\w+\s*\}\}", "test-key", str(value))
    return {**env, **extra}


def test_the_ci_recipe_runs_as_written(cli: Cli, tmp_path: Path) -> None:
    agent_step, report_step = _steps()
    assert "--no-human" in agent_step["run"] and f"--output-schema {SCHEMA}" in agent_step["run"]
    assert f"--config {CONFIG}" in agent_step["run"]
    cli.write(CONFIG, marked_block(PAGE, "ci-config"))
    cli.write(SCHEMA, marked_block(PAGE, "ci-schema"))
    cli.write("docs/guide.md", "# Guide\n\nRead teh manual.\n")
    answer = {
        "summary": "Fixed one typo in docs/guide.md.",
        "files_changed": ["docs/guide.md"],
        "ready_for_review": True,
    }
    openai, anthropic = openai_server(), anthropic_server()
    try:
        openai.enqueue(
            Turn(calls=(Call("c1", "read_file", {"path": "docs/guide.md"}),)),
            Turn(
                calls=(Call("c2", "write_file", {"path": "docs/guide.md", "content": "# Guide\n\nRead the manual.\n"}),)
            ),
            Turn(calls=(Call("v1", "submit_verdict", {"verdict": "approve", "reason": "a typo fix"}),)),  # the panel
            Turn(text=json.dumps(answer)),
        )
        anthropic.enqueue(Turn(calls=(Call("toolu_v", "submit_verdict", {"verdict": "approve", "reason": "fine"}),)))
        summary = tmp_path / "summary.md"
        urls = {"OPENAI_BASE_URL": f"{openai.url}/v1", "ANTHROPIC_BASE_URL": anthropic.url}
        for step in (agent_step, report_step):
            env = _env(cli, step, GITHUB_STEP_SUMMARY=str(summary), **urls)
            done = subprocess.run(
                ["bash", "-e", "-c", step["run"]],
                cwd=cli.workspace,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0, f"{step['name']}: {done.stderr}"
        agent_bodies = [b for b in openai.bodies() if "response_format" in b]
        assert len(agent_bodies) == 3  # every request of the agent asked for the schema
        assert len(anthropic.bodies()) == 1 and openai.remaining == 0 and anthropic.remaining == 0
    finally:
        openai.stop()
        anthropic.stop()
    result = json.loads((cli.workspace / "result.json").read_text())
    jsonschema.validate(result, json.loads(marked_block(PAGE, "ci-schema")))
    assert result == answer
    assert (cli.workspace / "docs/guide.md").read_text() == "# Guide\n\nRead the manual.\n"  # the panel approved
    assert summary.read_text() == "Fixed one typo in docs/guide.md.\n\nFiles: docs/guide.md\n"
