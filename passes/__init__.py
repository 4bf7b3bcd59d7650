"""gemmc's passes, one per file; gemmc.pipeline registers them by name."""
