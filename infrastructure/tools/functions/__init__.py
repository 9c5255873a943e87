"""Python function tools: plain functions made into tools with ``@tool`` and ``add_tool``.

``tool`` turns a function into a ``Tool`` (its JSON Schema from the signature, ``signature_schema``,
and the argument descriptions from the docstring, ``docstring_args``); ``source`` is the
``ToolSource`` serving the registered ones; ``tool_context`` is what a function may ask about the
call it serves.
"""
