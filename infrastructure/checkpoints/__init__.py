"""Checkpoints of the workspace: the ``[checkpoints]`` section and the file store behind ``CheckpointStore``."""
