"""The composition: the one place that knows concrete classes, shared by every driver.

``container`` builds the parts (configuration, plugins, gateway, tools, reviewer, run store),
``runtime.Runtime`` opens and closes them as one ``async with``, and ``runs.prepare_run`` turns a
task into a ``RunRequest`` with its observers. The CLI (``quorum.cli``) and the Python API
(``quorum.agent``) sit on it; neither imports the other (see docs/decisions/120-one-composition.md).
Modules are imported on use: ``import quorum`` loads none of them.
"""
