"""The ``quorum`` command line and the composition root (``container``)."""
