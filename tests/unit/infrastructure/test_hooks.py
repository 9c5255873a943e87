"""Reading hooks: their answers (``read_answer``) and the hooks of every layer with their file."""

from __future__ import annotations

import json

import pytest

from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.config.layers import Layer, merge
from quorum.infrastructure.config.loader import RawConfig
from quorum.infrastructure.hooks.layers import configured_hooks
from quorum.infrastructure.hooks.runner import read_answer


def _pre(decision: str, reason: str = "") -> str:
    return json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": decision,
                "permissionDecisionReason": reason,
            }
        }
    )


def test_pre_tool_use_answers() -> None:
    assert read_answer("c", "pre_tool_use", 0, "", "").permission is None
    assert read_answer("c", "pre_tool_use", 0, _pre("allow"), "").permission == "allow"
    denied = read_answer("c", "pre_tool_use", 0, _pre("deny", "no"), "")
    assert (denied.permission, denied.reason, denied.failure) == ("deny", "no", None)
    exit2 = read_answer("c", "pre_tool_use", 2, "", "not .env")
    assert (exit2.permission, exit2.reason) == ("deny", "not .env")


@pytest.mark.parametrize(
    ("status", "out", "failure"),
    [
        (1, "", "exit status 1"),
        (127, "", "exit status 127"),
        (0, "yes", "not JSON"),
        (0, "[1]", "not a JSON object"),
        (0, '{"decision": "approve"}', "no hookSpecificOutput"),
        (0, _pre("maybe"), "no permissionDecision"),
        (0, json.dumps({"hookSpecificOutput": {"hookEventName": "Stop", "permissionDecision": "allow"}}), "no perm"),
    ],
)
def test_anything_else_from_a_pre_tool_use_hook_is_a_failure(status: int, out: str, failure: str) -> None:
    outcome = read_answer("c", "pre_tool_use", status, out, "")
    assert outcome.permission is None and outcome.failure is not None and failure in outcome.failure


def test_escapes_in_answers_are_shown_not_obeyed() -> None:
    outcome = read_answer("c", "pre_tool_use", 0, _pre("deny", "x\x1b]52;c;AAAA\x07y"), "")
    assert "\x1b" not in outcome.reason and "\\x1b" in outcome.reason


def test_other_events_answers() -> None:
    block = read_answer("c", "stop", 0, '{"decision": "block", "reason": "tests"}', "")
    assert (block.block, block.reason) == (True, "tests")
    assert read_answer("c", "stop", 2, "", "again").block
    context = '{"hookSpecificOutput": {"additionalContext": "formatted"}}'
    assert read_answer("c", "post_tool_use", 0, context, "").context == "formatted"
    assert read_answer("c", "user_prompt_submit", 0, "plain words", "").context == "plain words"
    assert read_answer("c", "post_tool_use", 0, "plain words", "").failure is not None


def _raw(*layers: Layer) -> RawConfig:
    data, origins = merge(list(layers))
    return RawConfig(data, origins, (), layers=layers)


def test_hooks_add_up_across_layers_each_with_its_file() -> None:
    user = Layer("/home/me/.config/quorum/quorum.toml", {"hooks": {"pre_tool_use": [{"command": "mine"}]}})
    repo = Layer("/repo/quorum.toml", {"hooks": {"pre_tool_use": [{"command": "theirs", "matcher": "^write"}]}})
    hooks = configured_hooks(_raw(user, repo))
    assert [(h.command, h.source) for h in hooks] == [("mine", user.label), ("theirs", repo.label)]
    assert hooks[1].names("write_file") and not hooks[1].names("read_file") and hooks[0].names("read_file")


def test_a_raw_config_without_its_layers_keeps_its_hooks() -> None:
    data = {"hooks": {"stop": [{"command": "nag", "timeout": 5}]}}
    [hook] = configured_hooks(RawConfig(data, {"hooks.stop": "agent.toml"}, ()))
    assert (hook.event, hook.command, hook.timeout, hook.source) == ("stop", "nag", 5.0, "agent.toml")


def test_an_invalid_hook_names_its_file_and_key() -> None:
    bad = Layer("/repo/quorum.toml", {"hooks": {"pre_tool_use": [{"command": "x", "matcher": "("}]}})
    with pytest.raises(ConfigurationError, match=r"/repo/quorum.toml: hooks.pre_tool_use.0.matcher"):
        configured_hooks(_raw(bad))
