"""Tokens before the task: the system prompt and the built-in tools' definitions, per tools profile.

What a model reads on every request before the conversation starts, as Chat Completions sends it
(``messages[0]`` and ``tools``), in each profile. Tokens are estimated as Quorum's context
estimate counts them (UTF-8 bytes / 4); with ``--tokenizer URL`` (a llama.cpp server, e.g. the
real-model tests' one) they are also counted by that model's own tokenizer.

    python bench/prompt_size.py [--tokenizer http://127.0.0.1:PORT]
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quorum.application.compaction import BYTES_PER_TOKEN
from quorum.application.execution import DEFAULT_SYSTEM_PROMPT, LEAN_SYSTEM_PROMPT
from quorum.domain.tool_profile import ToolsProfile, lean
from quorum.infrastructure.providers.openai.wire import tools_to_wire
from quorum.infrastructure.tools.builtin import BUILTIN_TOOLS
from quorum.infrastructure.tools.schema import JsonSchemaToolConverter

WORKSPACE = "/home/user/project"


def before_the_task(profile: ToolsProfile) -> str:
    """The system prompt and the tools as JSON text, as a request carries them."""
    converter = JsonSchemaToolConverter()
    tools = [lean(tool) if profile == "lean" else tool for tool in BUILTIN_TOOLS]
    prompt = (LEAN_SYSTEM_PROMPT if profile == "lean" else DEFAULT_SYSTEM_PROMPT).format(workspace=WORKSPACE)
    wire = tools_to_wire([converter.tool_to_schema(tool) for tool in tools])
    return json.dumps({"messages": [{"role": "system", "content": prompt}], "tools": wire}, ensure_ascii=False)


def estimated_tokens(profile: ToolsProfile) -> int:
    """Quorum's estimate of the tokens before the task in ``profile``."""
    return len(before_the_task(profile).encode()) // BYTES_PER_TOKEN


def _model_tokens(url: str, text: str) -> int:
    request = urllib.request.Request(
        url.rstrip("/") + "/tokenize", data=json.dumps({"content": text}).encode(), method="POST"
    )
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        return len(json.load(response)["tokens"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokenizer", help="a llama.cpp server's URL, to count with the model's tokenizer")
    args = parser.parse_args()
    for profile in ("full", "lean"):
        line = f"{profile:<5} estimated {estimated_tokens(profile):>5} tokens"
        if args.tokenizer:
            line += f", model tokenizer {_model_tokens(args.tokenizer, before_the_task(profile)):>5}"
        print(line)


if __name__ == "__main__":
    main()
