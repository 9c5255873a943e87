"""OpenTelemetry traces and metrics of runs, after the GenAI semantic conventions (``[telemetry]``).

Only ``settings``, ``names``, ``plugin`` and ``hooks`` import without OpenTelemetry; everything else
is imported when ``[telemetry] enabled = true`` builds a ``Telemetry`` (``quorum-agent[otel]``).
"""
