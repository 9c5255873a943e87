"""``[tools.sandbox]``: how ``run_command`` calls are confined by the operating system."""

from __future__ import annotations

from typing import Literal

from quorum.infrastructure.config.sections import Section

SandboxMode = Literal["auto", "required", "off"]
ApprovedCommands = Literal["host", "workspace-write"]
SandboxWrites = Literal["off", "workspace"]


class SandboxSettings(Section):
    """``[tools.sandbox]`` section.

    Attributes:
        mode: ``auto`` (default): low-risk commands run in the sandbox; with no working sandbox
            every ``run_command`` call is reviewed. ``required``: a run that offers ``run_command``
            refuses to start without a working sandbox. ``off``: no sandbox; the risk classifier
            alone decides what runs unreviewed.
        approved: where approved (reviewed) commands run: ``host`` (default, unconfined) or
            ``workspace-write`` (sandboxed with the workspace writable, the rest of the file
            system read-only, network on).
        program: the bubblewrap executable (a name looked up on ``PATH``, or a path).
        writes: ``off`` (default): commands that may write are reviewed and run as ``approved``
            says. ``workspace``: a command whose only risk is writing workspace files (risk kind
            ``writes_workspace``, ``shell.kinds``) runs in the sandbox with the workspace writable,
            the rest of the file system hidden or read-only, a private ``/tmp`` and no network,
            whoever approved it.
    """

    mode: SandboxMode = "auto"
    approved: ApprovedCommands = "host"
    program: str = "bwrap"
    writes: SandboxWrites = "off"
