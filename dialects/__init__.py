"""gemmc's own xDSL dialects: only what upstream xDSL lacks."""
