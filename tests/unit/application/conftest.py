from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from quorum.application.execution import ExecutionParams, RunRequest, RunResult
from quorum.application.ports.hooks import HookRunner
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.secrets import Redactor
from tests.fakes import (
    FakeGateway,
    FakeTools,
    JsonSchema,
    RecordingObserver,
    ScriptedReviewer,
    ScriptedSession,
)


@dataclass
class Harness:
    session: ScriptedSession
    tools: FakeTools
    reviewer: ScriptedReviewer
    observer: RecordingObserver
    redactor: Redactor = field(default_factory=Redactor)
    hooks: HookRunner | None = None

    def agent(self) -> RunAgent:
        return RunAgent(
            gateway=FakeGateway(self.session),
            executor=self.tools,
            schema=JsonSchema(),
            reviewer=self.reviewer,
            observer=self.observer,
            redactor=self.redactor,
            new_run_id=lambda: "run-1",
            hooks=self.hooks,
        )

    async def run(self, task: str = "do it", **params: Any) -> RunResult:
        request = RunRequest(task=task, model_id="fake:model", params=ExecutionParams(**params))
        return await self.agent().execute(request)

    def results_sent(self, n: int) -> list[Any]:
        """The results the n-th send_tool_results call carried (0-based)."""
        return [s for s in self.session.sent if s[0] == "send_tool_results"][n][1][0]


@pytest.fixture
def h() -> Harness:
    tools = FakeTools()
    return Harness(ScriptedSession([]), tools, ScriptedReviewer(tools=tools), RecordingObserver())
