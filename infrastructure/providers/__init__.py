"""LLM providers: the plugin-backed gateway and the built-in provider plugins."""
