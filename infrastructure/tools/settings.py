"""``[tools]``: which tools are offered, their risk overrides, output cap and workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field, field_validator

from quorum.domain.tools import RiskLevel
from quorum.infrastructure.config.sections import Section
from quorum.infrastructure.sandbox.settings import SandboxSettings


class CommandEnvSettings(Section):
    """``[tools] command_env``: deliberate exceptions to the environment commands get.

    Attributes:
        pass_: (``pass`` in TOML) variables passed from Quorum's environment to every command,
            even secret ones (e.g. ``GITHUB_TOKEN`` for an approved ``gh``).
        set: variables set to fixed values for every command.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    pass_: list[str] = Field(default_factory=list, alias="pass")
    set: dict[str, str] = Field(default_factory=dict)


class ToolsSettings(Section):
    """``[tools]`` section.

    Attributes:
        workspace: directory tools act in (default: the current directory).
        enabled: name patterns (globs) of tools to offer; empty means all.
        disabled: name patterns of tools never to offer (wins over ``enabled``).
        risk: risk overrides by name pattern, e.g. ``"mcp__time__*" = "low"``.
        output_limit_bytes: cap of one tool output; the rest is cut with a note.
        images: ``"auto"`` sends images tools return (and base64 images found in their text) to
            the model as image input, when its provider accepts images; ``"off"`` replaces them
            with a note. Base64 never reaches the model as text either way.
        read_before_write: ``write_file`` over an existing file and ``edit_file`` are refused until
            the conversation has read the file (``read_file``, or an earlier write or edit of it);
            ``false`` turns the check off.
        command_env: variables passed or set for ``run_command`` (see ``CommandEnvSettings``).
        sandbox: ``[tools.sandbox]``, how ``run_command`` is confined.
    """

    workspace: Path | None = None
    enabled: list[str] = Field(default_factory=list)
    disabled: list[str] = Field(default_factory=list)
    risk: dict[str, RiskLevel] = Field(default_factory=dict)
    output_limit_bytes: int = Field(50_000, ge=1_000)
    images: Literal["auto", "off"] = "auto"
    read_before_write: bool = True
    command_env: CommandEnvSettings = Field(default_factory=CommandEnvSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)

    @field_validator("workspace")
    @classmethod
    def _check_workspace(cls, workspace: Path | None) -> Path | None:
        """An existing directory (every tool would fail otherwise)."""
        if workspace is None:
            return None
        path = workspace.expanduser()
        if path.is_dir():
            return workspace
        problem = "does not exist" if not path.exists() else "is not a directory"
        raise ValueError(f"{str(workspace)!r} {problem}")
