"""Provider keys stored by ``quorum keys set``: the platform keyring, else a 0600 file.

``StoredKeys`` is cheap to build and touches nothing until asked; the keyring is imported only
when a stored key lives there.
"""

from quorum.infrastructure.keys.store import KEYS_BACKEND_ENV, KeyLookup, StoredKey, StoredKeys, open_key_store

__all__ = ["KEYS_BACKEND_ENV", "KeyLookup", "StoredKey", "StoredKeys", "open_key_store"]
