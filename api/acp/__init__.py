"""``quorum.acp``: the Agent Client Protocol driver (``quorum acp``), for editors such as Zed.

An ACP agent on stdin/stdout (decision 160), built on the SDK ``agent-client-protocol``, which
frames and validates the JSON-RPC messages; this package maps protocol calls to sessions on
``quorum.composition``, like every driver, and imports no other driver. The SDK is imported only
when the agent starts (``python -m quorum.acp``).
"""
