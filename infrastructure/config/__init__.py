"""quorum.toml: one typed schema, one layered loader, read only by the container."""
