"""gemmc's passes, one per file; gemmc.driver.pipeline registers them by name."""
