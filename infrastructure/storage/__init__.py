"""The run log: a recorder observing runs, and the SQL run stores behind the ``RunStore`` port.

One store's statements (``sql_store.py``, ``queries.py``, ``approvals.py``, ``writer.py``) serve
SQLite and PostgreSQL through a dialect object (``operations.py``), over one schema (``schema.py``:
tables, indexes and migrations, written once); each backend adds only its connection
(``sqlite_store.py``, ``postgres_store.py``) and its schema version counter (``sqlite_schema.py``,
``postgres_schema.py``). The stores are a built-in plugin (``quorum.infrastructure.storage.plugin``,
registered as ``sqlite`` and ``postgres``);
another backend registers its own factory under another name and is chosen by ``[storage] backend``.
Nothing is re-exported here: ``settings`` is imported by the config schema on every start, and must
not drag in sqlite3. Import ``recorder.RunRecorder`` and ``sqlite_store.SqliteRunStore`` directly.
"""

__all__: list[str] = []
