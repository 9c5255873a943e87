"""The run log: a recorder observing runs, and the SQLite run store behind the ``RunStore`` port.

The store is a built-in plugin (``quorum.infrastructure.storage.plugin``, registered as ``sqlite``);
another backend registers its own factory under another name and is chosen by ``[storage] backend``.
Nothing is re-exported here: ``settings`` is imported by the config schema on every start, and must
not drag in sqlite3. Import ``recorder.RunRecorder`` and ``sqlite_store.SqliteRunStore`` directly.
"""

__all__: list[str] = []
