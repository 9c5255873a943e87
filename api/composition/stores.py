"""The run store a composition opens: the configured backend, and its pending approvals."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from quorum.application.ports.run_store import RunStore
from quorum.composition.options import AppOptions
from quorum.composition.paths import user_data_dir
from quorum.domain.errors import ConfigurationError, UsageError
from quorum.infrastructure.plugins.contracts import StoreContext
from quorum.infrastructure.storage.settings import StorageSettings

if TYPE_CHECKING:
    from quorum.infrastructure.config.schema import Settings
    from quorum.infrastructure.plugins.manager import PluginCatalog


def open_store(catalog: PluginCatalog, settings: Settings, env: Mapping[str, str]) -> RunStore:
    """The store of ``[storage] backend`` (whether or not recording is on).

    Raises:
        ConfigurationError: no plugin provides that backend.
    """
    entry = catalog.stores.get(settings.section(StorageSettings).backend)
    if entry is None:
        known = ", ".join(catalog.stores.names()) or "none installed"
        raise ConfigurationError(
            f"no run-store plugin {settings.section(StorageSettings).backend!r} ({known})", key="storage.backend"
        )
    return entry.value(StoreContext(settings=settings, env=env, data_dir=user_data_dir()))


def build_run_store(
    catalog: PluginCatalog, settings: Settings, options: AppOptions, env: Mapping[str, str]
) -> RunStore | None:
    """The store runs are recorded in, or None when recording is off (``--no-log``, ``enabled = false``)."""
    if options.no_log or not settings.section(StorageSettings).enabled:
        return None
    return open_store(catalog, settings, env)


def as_approvals(store: RunStore | None) -> Any:
    """``store``, checked to be ``PendingApprovals`` too (the run log that keeps calls waiting for a person).

    Typed ``Any``: the result is both a ``RunStore`` and ``PendingApprovals``.

    Raises:
        UsageError: the run log is disabled (``store`` is None).
        ConfigurationError: the configured run store keeps no pending approvals.
    """
    from quorum.application.ports.approvals import PendingApprovals

    if store is None:
        raise UsageError("pending calls live in the run log, which is disabled ([storage] enabled = false)")
    if not isinstance(store, PendingApprovals):
        raise ConfigurationError(f"the run store {store!r} keeps no pending approvals", key="storage.backend")
    return store
