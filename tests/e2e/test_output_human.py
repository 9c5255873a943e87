"""The human output of ``quorum run``/``ask``, pinned for a fixed scripted run (``--color never``).

Run ids and times vary, so they are replaced before comparing; every other character is pinned.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests.e2e.conftest import Cli

PANEL = """\
[review]
reviewers = ["scripted:reviewers.toml#approve", "scripted:reviewers.toml#reject", "scripted:reviewers.toml#approve"]
rule = "unanimous"
"""
REVIEWERS = """\
[scripts.approve]
[[scripts.approve.turns]]
[[scripts.approve.turns.tool_calls]]
name = "submit_verdict"
arguments = { verdict = "approve", reason = "fine" }

[scripts.reject]
[[scripts.reject.turns]]
[[scripts.reject.turns.tool_calls]]
name = "submit_verdict"
arguments = { verdict = "reject", reason = "nobody asked for a file" }
"""


def scripted_run(cli: Cli, *, panel: bool = True) -> str:
    cli.write("a.txt", "alpha\n")
    turns = [
        {
            "text": "Reading.",
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": "a.txt"}},
                {"name": "nosuch", "arguments": {}},
                {"name": "write_file", "arguments": {"path": "out.txt", "content": "x"}},
            ],
        },
        {"text": "# Answer\n\nThe file says **alpha**."},
    ]
    cli.write("script.json", json.dumps({"turns": turns}))
    if panel:
        cli.write("reviewers.toml", REVIEWERS)
        cli.write("quorum.toml", PANEL)
    return "scripted:script.json"


def normalized(text: str) -> str:
    text = re.sub(r"run [0-9a-f]{16}", "run RUN_ID", text)
    text = re.sub(r"\(\d+ ms\)", "(N ms)", text)
    return re.sub(r"\d+\.\d s\b", "T s", text)


def test_a_run_is_told_once_in_plain_words(cli: Cli) -> None:
    model = scripted_run(cli)
    result = cli("run", "--color", "never", "--no-log", "--model", model, "go")
    assert result.code == 0, result.stderr
    assert result.stdout == "Reading.\n# Answer\n\nThe file says **alpha**.\n"  # not a terminal: the text as sent
    assert normalized(result.stderr) == (
        "● run RUN_ID · scripted:script.json\n"
        '→ read_file {"path": "a.txt"}\n'
        "→ nosuch {}  ✗ invalid: unknown tool 'nosuch'; available tools: read_file, glob_search, grep_search, "
        "list_dir, write_file, edit_file, run_command\n"
        '→ write_file {"path": "out.txt", "content": "x"}  high risk\n'
        "← read_file ✓ (N ms) alpha\n"
        "  ✗ rejected by 1 of 3 reviewers (unanimous needed)\n"
        "      scripted:reviewers.toml#reject (reject): nobody asked for a file\n"
        "done · 2 turns · 0 tokens (0 in, 0 out) · T s\n"
    )
    assert "\x1b" not in result.stderr + result.stdout
    assert result.stderr.count("nobody asked for a file") == 1  # the reason is said once


def test_a_majority_approval_names_its_counts(cli: Cli) -> None:
    model = scripted_run(cli)
    cli.write("quorum.toml", PANEL.replace("unanimous", "majority"))
    result = cli("run", "--color", "never", "--no-log", "--model", model, "go")
    assert result.code == 0, result.stderr
    assert "  ✓ approved by 2 of 3 reviewers (majority needed)\n" in result.stderr
    assert "← write_file ✓" in result.stderr


def test_quiet_prints_only_the_final_answer_and_the_final_line(cli: Cli) -> None:
    model = scripted_run(cli)
    result = cli("run", "-q", "--color", "never", "--no-log", "--model", model, "go")
    assert result.code == 0, result.stderr
    assert result.stdout == "# Answer\n\nThe file says **alpha**.\n"
    assert re.fullmatch(r"done · 2 turns · 0 tokens \(0 in, 0 out\) · \d+\.\d s\n", result.stderr)


def test_stops_are_said_in_words(cli: Cli) -> None:
    turns = [{"tool_calls": [{"name": "list_dir", "arguments": {"path": "."}}]}] * 3
    cli.write("loop.json", json.dumps({"turns": turns}))
    result = cli("run", "--color", "never", "--no-log", "--max-turns", "1", "--model", "scripted:loop.json", "go")
    assert re.search(r"^stopped: tool turn limit \(1\) · 2 turns · ", result.stderr, re.M), result.stderr

    cli.write("empty.json", json.dumps({"turns": []}))
    failed = cli("run", "--color", "never", "--no-log", "--model", "scripted:empty.json", "go")
    assert failed.code == 1
    (final,) = [line for line in failed.stderr.splitlines() if line.startswith("failed: ")]
    assert "ran out of script" in final
    assert failed.stderr.count("ran out of script") == 1


def test_no_color_and_color_choices(cli: Cli) -> None:
    model = scripted_run(cli, panel=False)
    plain = cli("run", "--no-log", "--model", model, "go", NO_COLOR="1", FORCE_COLOR="1")
    assert "\x1b" not in plain.stderr
    forced = cli("run", "--no-log", "--model", model, "go", FORCE_COLOR="1")
    assert "\x1b[32mdone" in forced.stderr
    always = cli("run", "--color", "always", "--no-log", "--model", model, "go", NO_COLOR="1")
    assert "\x1b[" in always.stderr
    never = cli("run", "--color", "never", "--no-log", "--model", model, "go", FORCE_COLOR="1")
    assert "\x1b" not in never.stderr


def test_piped_input_is_attached_to_the_task(cli: Cli) -> None:
    cli.write("echo.json", json.dumps({"turns": [{"text": "ok"}]}))
    result = cli("ask", "--json", "--no-log", "--model", "scripted:echo.json", "review this diff", input="+ added\n")
    assert result.events()[0]["task"] == "review this diff\n\n```\n+ added\n```"
    fenced = cli("ask", "--json", "--no-log", "--model", "scripted:echo.json", "explain", input="```py\nx\n```\n")
    assert fenced.events()[0]["task"] == "explain\n\n````\n```py\nx\n```\n````"


def test_a_dash_reads_the_task_from_stdin(cli: Cli) -> None:
    cli.write("echo.json", json.dumps({"turns": [{"text": "ok"}]}))
    result = cli("ask", "--json", "--no-log", "--model", "scripted:echo.json", "-", input="what is here?\n")
    assert result.events()[0]["task"] == "what is here?"
    missing = cli("ask", "--no-log", "--model", "scripted:echo.json", "-", input="")
    assert missing.code == 2 and "give the task" in missing.stderr


def quorum(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "quorum.cli.main", *args], capture_output=True, text=True, check=True)
    return out.stdout


def test_help_texts() -> None:
    top = quorum("--help")
    assert "\\b" not in top
    assert "  Start offline:  quorum run --model" in top  # kept as written, not rewrapped
    ask = quorum("ask", "--help")
    assert "Usage: quorum ask [OPTIONS] [TASK]..." in ask
    assert "QUESTION" not in ask and "Ask TASK" in ask
    assert "--color [auto|always|never]" in ask


def test_help_imports_no_drawing_library() -> None:
    code = (
        "import sys\n"
        "from quorum.cli.main import cli\n"
        "for args in (['--help'], ['run', '--help'], ['ask', '--help']):\n"
        "    try:\n"
        "        cli.main(args=args, prog_name='quorum', standalone_mode=False)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print('LOADED', sorted(m for m in ('rich', 'prompt_toolkit') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "LOADED []"
