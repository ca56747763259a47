"""The collective's roster: who may do what, signed by its owners (see rules.py, service.py)."""
