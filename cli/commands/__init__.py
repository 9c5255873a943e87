"""One module per command (group); ``cli.main`` imports them on demand."""
