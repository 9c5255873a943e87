"""Tools: the executor over every tool source, the built-in tools and their JSON Schema.

Sub-packages, one concept each:

- ``shell`` — ``run_command``: the shell risk classifier (``shell.risk.classify_command``) and
  running a command line.
- ``files`` — the file tools (read, write, edit, list, glob and grep) inside the workspace.
- ``functions`` — Python function tools (``@tool``, ``add_tool``, ``functions.source.FunctionToolSource``).

Shared by them, at this level:

- ``executor.PluginToolExecutor`` — the ``ToolExecutor`` port over ``ToolSource``s, applying ``[tools]``.
- ``builtin.BuiltinToolSource`` — read_file, glob_search, grep_search, list_dir, write_file,
  edit_file, run_command, confined to the workspace (``workspace.Workspace``).
- ``schema.JsonSchemaToolConverter`` — the ``ToolSchemaPort``.
- ``plugin`` — the ``quorum.builtin_tools`` plugin registering the ``builtin`` source.
- ``blocking`` (file work in stoppable daemon threads), ``output`` (capping), ``images``,
  ``known_tools``, ``settings``.

Nothing is re-exported here: ``settings`` is imported by the config schema, and keeping this package
import empty avoids cycles and import cost.
"""
