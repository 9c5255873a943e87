"""Span, attribute and metric names Quorum emits (no OpenTelemetry import).

They follow the OpenTelemetry GenAI and MCP semantic conventions as of semconv **1.44.0**
(``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental``; the tests compare each against the
``opentelemetry-semantic-conventions`` package's constants). ``quorum.*`` names are Quorum's own.
"""

from __future__ import annotations

SEMCONV_VERSION = "1.44.0"
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
AGENT_NAME = "quorum"

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
AGENT = "gen_ai.agent.name"
CONVERSATION = "gen_ai.conversation.id"
REQUEST_MODEL = "gen_ai.request.model"
REQUEST_STREAM = "gen_ai.request.stream"
RESPONSE_MODEL = "gen_ai.response.model"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_WRITE_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
TOKEN_TYPE = "gen_ai.token.type"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"
MCP_METHOD = "mcp.method.name"
MCP_SESSION = "mcp.session.id"
NETWORK_TRANSPORT = "network.transport"

TOKEN_USAGE = "gen_ai.client.token.usage"
OPERATION_DURATION = "gen_ai.client.operation.duration"

CHAT = "chat"
INVOKE_AGENT = "invoke_agent"
EXECUTE_TOOL = "execute_tool"

RUN_ID = "quorum.run.id"
STOP_REASON = "quorum.run.stop_reason"
TOOL_RISK = "quorum.tool.risk"
TOOL_SERVER = "quorum.tool.server"
REVIEW = "quorum.review"
REVIEW_DECISION = "quorum.review.decision"
REVIEW_DECIDED_BY = "quorum.review.decided_by"
REVIEW_RULE = "quorum.review.rule"
REVIEW_VOTES = "quorum.review.votes"
REVIEW_APPROVALS = "quorum.review.votes.approve"
REVIEW_REJECTIONS = "quorum.review.votes.reject"
REVIEW_REASON = "quorum.review.reason"
MCP_SERVER = "quorum.mcp.server"

# Buckets the conventions advise for the two histograms.
TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864)
DURATION_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92)

# gen_ai.provider.name's well-known values, by Quorum provider kind (others are passed as they are).
PROVIDER_NAMES = {
    "openai": "openai",
    "anthropic": "anthropic",
    "gemini": "gcp.gemini",
    "google": "gcp.gemini",
    "bedrock": "aws.bedrock",
    "mistral": "mistral_ai",
    "groq": "groq",
    "deepseek": "deepseek",
    "xai": "x_ai",
    "ollama": "ollama",
}
