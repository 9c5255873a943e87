"""A deferred run continued after an "always" answer: the human step starts with the run's scopes."""

from __future__ import annotations

from pathlib import Path

from quorum.domain.tools import ToolCall
from quorum.infrastructure.review.human import HumanReviewer
from quorum.infrastructure.review.scope import scope_for
from quorum.infrastructure.tools.workspace import Workspace
from tests.integration.review.conftest import context_for


def write(path: str) -> ToolCall:
    return ToolCall(native_id=path, name="write_file", arguments={"path": path, "content": "x"})


async def test_a_call_in_a_given_scope_is_approved_and_others_are_still_deferred(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    scope = scope_for(write("a.txt"), workspace)
    assert scope is not None
    human = HumanReviewer("defer", workspace=workspace, always=(scope,))
    covered = await human.decide(write("b.txt"), context_for(write("b.txt")), why="no panel")
    assert covered.approved and not covered.deferred and "always approve write_file" in covered.reason
    other = await human.decide(write("sub/c.txt"), context_for(write("sub/c.txt")), why="no panel")
    assert other.deferred and not other.approved  # a subdirectory is outside the scope: a person decides
    assert human.always_approved == (scope,)
