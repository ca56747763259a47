"""The readers of the rule judge, one per slot of an `Analysis`.

Each module reads one kind of thing from a tokenised text (`scan.Scan`):
clauses (a leading label, sentence starts, the main verb), flags (hedges,
qualifiers, negators, retractions), negation scope, times and dates,
identities, numbers and units, people and roles, states, places, and the
claim's content words. `collective.judge.reader.analyse_text` runs them in
order and builds the `Analysis`.
"""
