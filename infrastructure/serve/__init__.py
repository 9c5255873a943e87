"""``[serve]``: the settings of the HTTP driver (``quorum serve``); the server itself is ``quorum.serve``."""
