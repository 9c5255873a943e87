"""Quorum's domain: pure types and rules, no I/O and no SDKs.

Everything here is an immutable pydantic model or a pure function. The application layer builds the
agent loop out of these words; adapters translate provider wire formats into and out of them.
"""

from quorum.domain.errors import (
    ConfigurationError,
    InvalidArgumentsError,
    ProviderError,
    QuorumError,
    RunFailure,
    ToolFeedback,
    ToolRefusedError,
    ToolSourceError,
    UnknownToolError,
    UsageError,
)
from quorum.domain.events import (
    ReviewEvent,
    RunEvent,
    RunFinished,
    RunStarted,
    RunStopReason,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
    TurnFinished,
    TurnStarted,
    VoteRecord,
)
from quorum.domain.messages import Message, ToolResultBlock
from quorum.domain.model_id import ModelId
from quorum.domain.policy import ArgumentView, GlobError, PolicyDecision, PolicyRule
from quorum.domain.responses import (
    ContentBlock,
    LlmResponse,
    RunUsage,
    StopReason,
    TextBlock,
    ToolUseBlock,
    Usage,
)
from quorum.domain.review import QuorumRule, ReviewDecision, Verdict, Vote
from quorum.domain.secrets import Redactor, Secret
from quorum.domain.streaming import (
    StreamCompleted,
    StreamError,
    StreamEvent,
    StreamTextDelta,
    StreamToolCallDelta,
)
from quorum.domain.tools import (
    Clearance,
    ParamType,
    RiskAssessment,
    RiskLevel,
    ToolCall,
    ToolDefinition,
    ToolParameter,
    ToolResultMessage,
    ToolSpec,
)

__all__ = [
    "ArgumentView",
    "Clearance",
    "ConfigurationError",
    "ContentBlock",
    "GlobError",
    "InvalidArgumentsError",
    "LlmResponse",
    "Message",
    "ModelId",
    "ParamType",
    "PolicyDecision",
    "PolicyRule",
    "ProviderError",
    "QuorumError",
    "QuorumRule",
    "Redactor",
    "ReviewDecision",
    "ReviewEvent",
    "RiskAssessment",
    "RiskLevel",
    "RunEvent",
    "RunFailure",
    "RunFinished",
    "RunStarted",
    "RunStopReason",
    "RunUsage",
    "Secret",
    "StopReason",
    "StreamCompleted",
    "StreamError",
    "StreamEvent",
    "StreamTextDelta",
    "StreamToolCallDelta",
    "TextBlock",
    "TextDelta",
    "ToolCall",
    "ToolCallEvent",
    "ToolDefinition",
    "ToolFeedback",
    "ToolParameter",
    "ToolRefusedError",
    "ToolResultBlock",
    "ToolResultEvent",
    "ToolResultMessage",
    "ToolSourceError",
    "ToolSpec",
    "ToolUseBlock",
    "TurnFinished",
    "TurnStarted",
    "UnknownToolError",
    "Usage",
    "UsageError",
    "Verdict",
    "Vote",
    "VoteRecord",
]
