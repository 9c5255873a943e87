"""``[tools.sandbox]``: how ``run_command`` calls are confined by the operating system."""

from __future__ import annotations

from typing import Literal

from quorum.infrastructure.config.sections import Section

SandboxMode = Literal["auto", "required", "off"]
ApprovedCommands = Literal["host", "workspace-write"]


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
    """

    mode: SandboxMode = "auto"
    approved: ApprovedCommands = "host"
    program: str = "bwrap"
