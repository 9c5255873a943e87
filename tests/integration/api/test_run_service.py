"""``RunService`` over the real container: what a driver varies is a field of its order.

Each test runs the scripted model, the real tools, the real review gate and a real SQLite run
log in a temporary directory; only the person is a fake (a ``HumanPrompt`` answering from a list).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from quorum.composition.container import build_container
from quorum.composition.conversation import Conversation
from quorum.composition.options import AppOptions
from quorum.composition.orders import DecisionOrder, RunOrder
from quorum.composition.runtime import Runtime
from quorum.composition.service import RunElsewhere, RunService
from quorum.domain.errors import UsageError
from quorum.infrastructure.review.human import HumanAnswer, HumanRequest
from quorum.infrastructure.review.scope import ApprovalScope

WRITE = [
    {"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "x\n"}, "id": "w1"}]},
    {"text": "done"},
]


@dataclass
class Person:
    """A ``HumanPrompt`` answering from ``answers``, keeping what it was asked."""

    answers: list[str]
    asked: list[str] = field(default_factory=list)

    async def ask(self, request: HumanRequest) -> HumanAnswer:
        self.asked.append(request.call.name)
        return HumanAnswer(choice=self.answers.pop(0), reason="said so")  # type: ignore[arg-type]


@pytest.fixture
def scripted(tmp_path: Path) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"conversation": "continue", "turns": WRITE}))
    return f"scripted:{path}"


def service_for(workspace: Path, db: Path, *, interactive: bool = True, **review: Any) -> RunService:
    workspace.mkdir(exist_ok=True)
    overrides = {
        "tools": {"workspace": str(workspace)},
        "storage": {"path": str(db)},
        "review": {"hil_mode": "interactive", **review},
    }
    container = build_container(AppOptions(overrides=overrides, interactive=interactive), env={}, config_dir=None)
    return RunService(Runtime(container))


async def test_the_orders_human_port_is_asked_and_its_answer_decides(tmp_path: Path, scripted: str) -> None:
    service = service_for(tmp_path / "ws", tmp_path / "runs.db")
    person = Person(["approve"])
    async with service.runtime:
        result = await service.run(RunOrder("write", model=scripted, human=person))
    assert result.stop_reason == "end_turn" and person.asked == ["write_file"]
    assert (tmp_path / "ws" / "out.txt").read_text() == "x\n"


async def test_hil_mode_and_refused_scopes_decide_without_asking(tmp_path: Path, scripted: str) -> None:
    service = service_for(tmp_path / "ws", tmp_path / "runs.db")
    person = Person([])
    refused = [ApprovalScope(tool="write_file", kind="tool", label="write_file")]
    async with service.runtime:
        rejected = await service.run(RunOrder("write", model=scripted, human=person, hil_mode="auto_reject"))
        approved_but_refused = await service.run(
            RunOrder("write", model=scripted, human=person, hil_mode="auto_approve", refused=refused)
        )
    assert person.asked == [] and not (tmp_path / "ws" / "out.txt").exists()
    assert rejected.output == approved_but_refused.output == "done"


async def test_a_cost_cap_and_images_are_fields_of_the_prepared_request(tmp_path: Path, scripted: str) -> None:
    from quorum.domain.tools import ImagePart

    service = service_for(tmp_path / "ws", tmp_path / "runs.db")
    image = ImagePart(media_type="image/png", data="aGVsbG8=", size=5)
    async with service.runtime:
        prepared = await service.prepare(
            RunOrder("look", model=scripted, task_images=(image,), max_cost_usd=0.5, tools="low_risk_only")
        )
    assert prepared.request.params.max_cost_usd == 0.5 and prepared.request.task_images == (image,)
    assert prepared.request.params.tools == "low_risk_only"


async def test_a_deferred_run_is_decided_only_in_its_recorded_workspace(tmp_path: Path, scripted: str) -> None:
    db = tmp_path / "runs.db"
    there = service_for(tmp_path / "b", db, interactive=False, hil_mode="defer")
    async with there.runtime:
        waiting = await there.run(RunOrder("write", model=scripted))
    assert waiting.stop_reason == "awaiting_approval"

    here = service_for(tmp_path / "a", db, interactive=False, hil_mode="defer")
    async with here.runtime:
        with pytest.raises(RunElsewhere) as refused:
            await here.decide(DecisionOrder(run_id=waiting.run_id, approved=True, by="alice"))
    assert refused.value.recorded == str((tmp_path / "b").resolve()) and isinstance(refused.value, UsageError)
    assert not (tmp_path / "a" / "out.txt").exists() and not (tmp_path / "b" / "out.txt").exists()

    async with there.runtime:
        done = await there.decide(DecisionOrder(run_id=waiting.run_id, approved=True, by="alice"))
    assert done.stop_reason == "end_turn" and (tmp_path / "b" / "out.txt").read_text() == "x\n"


async def test_a_conversation_switches_model_only_to_one_its_provider_serves(tmp_path: Path, scripted: str) -> None:
    service = service_for(tmp_path / "ws", tmp_path / "runs.db")
    conversation = Conversation(model=scripted)
    with pytest.raises(UsageError):
        conversation.switch_model(service.runtime.container, "nosuchprovider:model")
    assert conversation.model == scripted
    assert conversation.switch_model(service.runtime.container, "test") == conversation.model == "test"
