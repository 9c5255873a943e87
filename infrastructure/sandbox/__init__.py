"""Operating-system confinement of the commands ``run_command`` starts.

Bubblewrap on Linux, Seatbelt on macOS, probed once per process (``detect``); the explicit child
environments (``environment``) and redacted stand-ins for secret-holding files (``redacted_files``).
Nothing is re-exported here: import the modules directly.
"""

__all__: list[str] = []
