"""What ``config show`` masks: secret keys, credential tables, secrets in URLs and in arguments."""

from __future__ import annotations

import pytest

from quorum.cli.masking import MASK, mask_args, mask_config, mask_url


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["--token=abc123"], ["--token=" + MASK]),
        (["--password", "hunter2", "serve"], ["--password", MASK, "serve"]),
        (["--api-key", "K1"], ["--api-key", MASK]),
        (["--secret=S", "--verbose"], ["--secret=" + MASK, "--verbose"]),
        (["--auth-token", "T"], ["--auth-token", MASK]),
        (["-p", "s3cret"], ["-p", MASK]),
        (["-pS3cret!"], ["-p" + MASK]),
        (["DB_PASS=pw", "GITHUB_TOKEN=ghp_x"], ["DB_PASS=" + MASK, "GITHUB_TOKEN=" + MASK]),
        (["-H", "Authorization: Bearer abc.def"], ["-H", f"Authorization: Bearer {MASK}"]),
        (["--url", "https://u:pw@db.example/x"], ["--url", f"https://u:{MASK}@db.example/x"]),
    ],
)
def test_credentials_in_args_are_masked(args: list[str], shown: list[str]) -> None:
    assert mask_args(args) == shown


@pytest.mark.parametrize(
    "args",
    [
        ["-p", "8080"],  # a port
        ["-p3306"],
        [".", "-print"],  # find
        ["--port", "5432", "--verbose", "--print"],
        ["--token", "--verbose"],  # a flag follows: nothing to mask
        ["mcp-server-git", "--repository", "/src/repo"],
    ],
)
def test_ordinary_args_are_left_alone(args: list[str]) -> None:
    assert mask_args(args) == args


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:pass@host.example/v1", f"https://user:{MASK}@host.example/v1"),
        ("https://ghp_token@github.com/o/r", f"https://{MASK}@github.com/o/r"),
        ("https://api.example/v1?api_key=K&model=m", f"https://api.example/v1?api_key={MASK}&model=m"),
        ("http://localhost:11434/v1", "http://localhost:11434/v1"),
    ],
)
def test_secrets_in_urls_are_masked(url: str, shown: str) -> None:
    assert mask_url(url) == shown


def test_config_tables_are_masked_by_key_and_by_kind() -> None:
    config = {
        "providers": {
            "p": {"api_key": "sk-1", "api_key_env": "OPENAI_API_KEY", "base_url": "https://u:pw@h/v1"},
        },
        "mcp": {
            "servers": {
                "gh": {
                    "command": "srv",
                    "args": ["--token", "T"],
                    "env": {"GITHUB_PAT": "ghp_1", "DB_PASS": "pw"},
                    "headers": {"X-Api": "k"},
                    "url": None,
                }
            }
        },
        "tools": {"command_env": {"pass": ["GITHUB_TOKEN"], "set": {"CI": "1"}}, "workspace": None},
        "agent": {"max_tool_turns": 4},
    }
    masked = mask_config(config)
    provider = masked["providers"]["p"]
    assert provider == {"api_key": MASK, "api_key_env": "OPENAI_API_KEY", "base_url": f"https://u:{MASK}@h/v1"}
    server = masked["mcp"]["servers"]["gh"]
    assert server["env"] == {"GITHUB_PAT": MASK, "DB_PASS": MASK}
    assert server["headers"] == {"X-Api": MASK} and server["args"] == ["--token", MASK]
    assert server["command"] == "srv" and server["url"] is None
    assert masked["tools"]["command_env"] == {"pass": ["GITHUB_TOKEN"], "set": {"CI": MASK}}
    assert masked["agent"] == {"max_tool_turns": 4}
