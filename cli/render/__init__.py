"""How run events are shown: human output on a terminal, or JSON lines."""
