"""``from quorum import Agent`` loads Quorum's API module and nothing a run needs (decision 271).

The import set is checked in a fresh interpreter, not a time: what is not imported costs nothing
on any machine. The first ``Agent()`` imports the rest.
"""

from __future__ import annotations

import json
import subprocess
import sys

NOT_BEFORE_A_RUN = (
    "openai",
    "anthropic",
    "mcp",
    "rich",
    "prompt_toolkit",
    "httpx",
    "pydantic",
    "pluggy",
    "asyncio",
    "sqlite3",
    "temporalio",
    "opentelemetry",
    "quorum.domain",
    "quorum.application",
    "quorum.infrastructure",
    "quorum.composition",
    "quorum.review",
    "quorum.run_result",
)


def modules_after(code: str) -> set[str]:
    script = f"import sys\n{code}\nimport json\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.splitlines()[-1]))


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(name for name in names if name in modules or any(m.startswith(name + ".") for m in modules))


def test_from_quorum_import_agent_loads_no_sdk_no_model_and_no_layer() -> None:
    assert loaded(modules_after("from quorum import Agent"), NOT_BEFORE_A_RUN) == []


def test_the_first_agent_loads_what_a_run_needs_and_the_names_stay_where_they_were() -> None:
    code = (
        "from quorum import Agent, RunResult\n"
        "import quorum.agent\n"
        "assert quorum.agent.RunResult is RunResult\n"
        "assert 'max_tool_turns' in quorum.agent.AGENT_KEYS\n"
        "Agent('test')\n"
    )
    modules = modules_after(code)
    assert loaded(modules, ("pydantic", "quorum.application", "quorum.review", "quorum.run_result")) == [
        "pydantic",
        "quorum.application",
        "quorum.review",
        "quorum.run_result",
    ]
