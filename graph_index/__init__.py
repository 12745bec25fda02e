"""Entity graph, hierarchical communities and community reports (built in a later issue)."""
