"""LLM providers: the plugin-backed gateway, one core for SDK-backed APIs, and the built-in kinds.

``gateway.PluginLlmGateway`` routes ``provider:model`` to a provider instance. The SDK-backed
kinds share one core (``settings_base``, ``gateway_base``, ``session_base``, ``errors``,
``retry_after``, ``http_body``); each API adds only its wire mapping, a ``WireApi``
(``wire_api``): ``openai`` (Chat Completions) and ``anthropic`` (Messages). ``offline`` holds
the ``test`` and ``scripted`` models, which need no network.
"""
