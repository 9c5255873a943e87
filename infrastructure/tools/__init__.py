"""Tools: the executor over every tool source, the built-in tools and their JSON Schema.

- ``executor.PluginToolExecutor`` — the ``ToolExecutor`` port over ``ToolSource``s, applying ``[tools]``.
- ``function_source.FunctionToolSource`` — plugin tools registered with ``add_tool``.
- ``builtin.BuiltinToolSource`` — read_file, glob_search, grep_search, list_dir, write_file,
  edit_file, run_command, confined to the workspace (``workspace.Workspace``).
- ``command_risk.classify_command`` — per-call risk of a shell command.
- ``schema.JsonSchemaToolConverter`` — the ``ToolSchemaPort``.
- ``plugin`` — the ``quorum.builtin_tools`` plugin registering the ``builtin`` source.

Nothing is re-exported here: ``settings`` is imported by the config schema, and keeping this package
import empty avoids cycles and import cost.
"""
