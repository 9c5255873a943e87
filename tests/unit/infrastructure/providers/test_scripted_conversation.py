"""Scripted models in a conversation: restart by default, continue or repeat when the script says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from quorum.application.ports.llm import TurnInput
from quorum.domain.errors import ProviderError
from quorum.domain.messages import Message
from quorum.domain.responses import TextBlock
from quorum.infrastructure.plugins.contracts import ProviderContext
from quorum.infrastructure.providers.offline.scripted import ScriptedGateway


def _script(tmp_path: Path, options: str) -> str:
    path = tmp_path / "s.toml"
    path.write_text(options + '\n[[turns]]\ntext = "one"\n[[turns]]\ntext = "two"\n')
    return str(path)


def _history(answers: int) -> list[Message]:
    history: list[Message] = []
    for n in range(answers):
        history.append(Message(role="user", content=(TextBlock(text=f"q{n}"),)))
        history.append(Message(role="assistant", content=(TextBlock(text=f"a{n}"),)))
    return history


async def _answer(reference: str, answers_so_far: int) -> str:
    gateway = ScriptedGateway(ProviderContext(name="scripted", kind="scripted", settings=None))
    session = gateway.session(reference, history=_history(answers_so_far))
    return (await session.request(TurnInput.user("next", []))).text_content()


async def test_by_default_each_session_replays_the_script_from_its_start(tmp_path: Path) -> None:
    assert await _answer(_script(tmp_path, ""), answers_so_far=1) == "one"


async def test_a_continuing_script_answers_after_the_responses_the_conversation_holds(tmp_path: Path) -> None:
    reference = _script(tmp_path, 'conversation = "continue"')
    assert [await _answer(reference, n) for n in (0, 1)] == ["one", "two"]
    with pytest.raises(ProviderError, match="ran out of script"):
        await _answer(reference, 2)


async def test_repeat_last_answers_with_the_last_turn_once_the_script_ran_out(tmp_path: Path) -> None:
    reference = _script(tmp_path, 'conversation = "continue"\nrepeat_last = true')
    assert [await _answer(reference, n) for n in (1, 2, 5)] == ["two", "two", "two"]
