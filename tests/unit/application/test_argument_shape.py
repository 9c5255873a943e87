"""Arguments too deep or too large: refused before validation, carried by events as a placeholder."""

from __future__ import annotations

from typing import Any

import pytest

from quorum.application.argument_validation import (
    MAX_ARGUMENT_BYTES,
    MAX_ARGUMENT_DEPTH,
    NOT_SHOWN_KEY,
    nesting_depth,
    shape_problem,
)
from quorum.domain.secrets import Redactor, Secret
from tests.fakes import calls, text
from tests.unit.application.conftest import Harness


def nested(levels: int, leaf: Any = "x") -> dict[str, Any]:
    value: Any = leaf
    for _ in range(levels - 1):
        value = {"a": value}
    return {"a": value}


async def echo(args: dict[str, Any]) -> str:
    return "ran"


@pytest.mark.parametrize(("value", "depth"), [("x", 0), ({}, 1), ([1, [2, [3]]], 3), (nested(5), 5)])
def test_nesting_depth_counts_containers(value: Any, depth: int) -> None:
    assert nesting_depth(value, 100) == depth


def test_nesting_depth_stops_past_the_limit_without_recursion() -> None:
    assert nesting_depth(nested(100_000), 64) == 65  # far past the interpreter's recursion limit


def test_shape_allows_the_bound_and_refuses_one_level_more() -> None:
    assert shape_problem(nested(MAX_ARGUMENT_DEPTH)) is None
    problem = shape_problem(nested(MAX_ARGUMENT_DEPTH + 1))
    assert problem == f"arguments nested too deeply (more than {MAX_ARGUMENT_DEPTH} levels)"


def test_shape_refuses_arguments_larger_than_the_bound() -> None:
    problem = shape_problem({"text": "é" * (MAX_ARGUMENT_BYTES // 2 + 10)})  # 2 bytes each in UTF-8
    assert problem is not None and "too large" in problem and str(MAX_ARGUMENT_BYTES) in problem


@pytest.mark.parametrize("levels", [500, 2000, 50_000])
async def test_deep_arguments_are_an_error_result_and_nothing_runs(h: Harness, levels: int) -> None:
    h.tools.add("read", echo)
    h.redactor = Redactor([Secret("K", "sekrit-value-123")])  # redaction walks every event
    h.session.script = [calls(("read", nested(levels))), text("ok")]
    result = await h.run()
    (res,) = h.results_sent(0)
    assert res.is_error and "nested too deeply (more than 64 levels); the call was not executed" in res.output
    assert h.tools.executed == [] and h.reviewer.reviewed == []
    (event,) = h.observer.of("tool_call")
    assert set(event.arguments) == {NOT_SHOWN_KEY}
    event.model_dump_json()  # serializable, unlike the arguments themselves
    assert result.stop_reason == "end_turn"


async def test_arguments_within_bounds_are_shown_whole(h: Harness) -> None:
    h.tools.add("read", echo)
    h.session.script = [calls(("read", nested(10))), text("ok")]
    await h.run()
    assert h.observer.of("tool_call")[0].arguments == nested(10)
    assert h.tools.executed != []
