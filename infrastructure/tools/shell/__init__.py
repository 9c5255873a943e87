"""``run_command``: deciding the risk of a shell command line, and running it.

The risk classifier parses the command the way ``/bin/sh -c`` would (``lexer``, ``tokens``,
``syntax``, ``programs``) and calls it low only when every simple command in it is on the
read-only allow-list (``risk``, ``rules``, ``options``, ``git_rule``). ``launch`` chooses how a call
runs (sandbox, environment) from its risk and clearance; ``process`` runs it with a timeout that
kills the whole process group; ``progress`` reports its latest output line while it runs.
"""
