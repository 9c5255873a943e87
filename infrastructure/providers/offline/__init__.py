"""Offline providers (no network, no key): ``test`` and ``scripted:PATH``, for demos and tests."""
