"""The ``quorum`` command line: a driver on ``quorum.composition`` (commands, options, errors → exit codes).

Commands translate flags into the composition's orders and render the run's events; they never
wire the composition (decision 190).
"""
