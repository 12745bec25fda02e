"""Graph-building operations (entities, resolution, relations, communities, reports) for the graph stage."""
