"""Reading one memory text into the slots the rule judge compares.

`analyse_text` runs the readers of `collective.judge.readers` over the text's
tokens in a fixed order: a reader marks the tokens it takes as used, so the
order decides which reading wins ("at 1500 hours" is a time before it can be
a count, "rover 5" an identity before it can be a number).
"""

from __future__ import annotations

from .analysis import EMPTY, Analysis
from .readers import clauses, content, flags, identities, negation, numbers, people, places, states, times
from .readers.scan import Scan


def analyse_text(text: str) -> Analysis:
    """Extract the judge's slots from one memory text (pure; see `RuleJudge.analyse`)."""
    s = Scan(text)
    clauses.read_frame(s)
    flags.read_flags(s)
    negation.read_scope(s)
    times.read_times(s)
    times.read_days(s)
    identities.read_identities(s)
    identities.read_modifier_identities(s)
    numbers.read_quantities(s)
    people.read_people(s)
    clauses.read_main_verb(s)
    states.read_states(s)
    places.read_places(s)
    return _analysis(s)


def _analysis(s: Scan) -> Analysis:
    """Every empty set of an analysis is the one EMPTY: most of its eleven sets are empty, and
    each would be an object of its own (kept analyses stay in memory, and the cyclic
    collector walks every set each full pass: 1.2M of them with 100k analyses kept)."""
    words, subject, predicate, attributes, positive, negated = content.content_words(s)
    ids, all_ids = identities.identity_sets(s)
    owners, named, roles, personal = people.people_sets(s)
    return Analysis(
        text=s.text,
        content=frozenset(words) or EMPTY,
        subject=frozenset(subject) or EMPTY,
        predicate=frozenset(predicate) or EMPTY,
        attributes=frozenset(attributes) or EMPTY,
        ids=ids,
        all_ids=all_ids or EMPTY,
        owners=owners or EMPTY,
        people=named or EMPTY,
        roles=roles or EMPTY,
        places=tuple(s.places),
        subject_places=tuple(s.subject_places),
        quantities=numbers.quantity_records(s),
        times=frozenset(s.times) or EMPTY,
        time_text=tuple(s.time_text),
        days={k: frozenset(v) for k, v in s.days.items()},
        axes={k: frozenset(v) for k, v in s.axes.items()},
        axis_words=s.axis_words,
        positive=frozenset(positive - negated) or EMPTY,
        negated=frozenset(negated - positive) or EMPTY,
        hedged=s.hedged,
        qualified=s.qualified,
        retracts=s.retracts,
        personal=personal,
        words=content.text_words(s),
    )
