"""The composition: the one place that knows concrete classes, shared by every driver.

``container`` builds the parts (configuration, plugins, gateway, tools, reviewer, run store),
``runtime.Runtime`` opens and closes them as one ``async with``, and ``service.RunService`` runs
what drivers order: a ``RunOrder`` (``orders``) becomes a prepared run (``runs.prepare``) executed
with its own reviewer, recorder and observers; a ``DecisionOrder`` continues a deferred run in the
workspace it was recorded in. ``conversation.Conversation`` is the chain of runs of a chat or an
editor session. The drivers (``quorum.cli``, ``quorum.agent``, ``quorum.serve``, ``quorum.acp``)
sit on it, never import each other, and never override its wiring (docs/decisions/120-one-composition.md,
190-one-run-service.md). Modules are imported on use: ``import quorum`` loads none of them.
"""
