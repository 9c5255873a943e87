"""Small-model evals: tasks with checks the agent does not see, run with the real local model."""
