"""Offline providers (no network, no key): ``test`` and ``scripted:PATH``, for demos and tests."""

OFFLINE_MODELS: tuple[str, ...] = ("test", "scripted:demo")
"""The offline models that need no file of the user's: a model list offers them (``GET /v1/models``)."""
