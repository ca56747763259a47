"""On top of collective: events between the agents of one site (events/, policy), sync
windows for one agent (clock, schedule, windows) and the link between two sites' commons
(link, relay)."""
