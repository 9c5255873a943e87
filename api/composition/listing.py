"""The rows drivers list tools and models with (``quorum tools list --json``, ``GET /v1/tools``, ``GET /v1/models``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quorum.infrastructure.providers.gateway import PluginLlmGateway
    from quorum.infrastructure.tools.executor import ListedTool


def tool_row(tool: ListedTool, sandbox: str) -> dict[str, Any]:
    """One listing row; ``run_command``'s also says how it runs (``sandbox``).

    ``risk`` is the tool's default risk; ``per_call_risk`` says some of its calls are low risk.
    """
    row: dict[str, Any] = {
        "name": tool.definition.name,
        "risk": tool.definition.risk.value,
        "source": tool.origin,
        "description": tool.definition.description,
        "per_call_risk": tool.definition.per_call_risk,
    }
    if tool.definition.name == "run_command" and tool.source == "builtin":
        row["sandbox"] = sandbox
    return row


def model_rows(gateway: PluginLlmGateway, default: str | None) -> list[dict[str, str]]:
    """The models a client may choose, without asking any provider, then the ``[aliases]``.

    Each model row is ``{"provider", "model", "source"}``: ``configured`` (named by the
    configuration), ``default`` (``default``, the model of a run naming none, when the configuration
    does not name it: the default of a provider key), ``offline`` (``test``, ``scripted:demo``:
    no key, no network). An alias row is ``{"alias", "model"}``.
    """
    from quorum.domain.model_id import ModelId
    from quorum.infrastructure.providers.offline import OFFLINE_MODELS

    rows = [
        {"provider": name, "model": f"{name}:{model}", "source": "configured"}
        for name, listed in sorted(gateway.known_models().items())
        for model in listed
    ]
    installed = set(gateway.provider_names())
    extra = [(default, "default")] if default else []
    extra += [(model, "offline") for model in OFFLINE_MODELS if ModelId.parse(model).provider in installed]
    for model, source in extra:
        if all(row["model"] != model for row in rows):
            rows.append({"provider": ModelId.parse(model).provider, "model": model, "source": source})
    rows.extend({"alias": alias, "model": target} for alias, target in sorted(gateway.aliases().items()))
    return rows
