"""On top of collective: events between the agents of one site (events/, policy)."""
