"""Reading one memory text into the slots the rule judge compares.

`analyse_text` runs the readers of `collective.judge.readers` over the text's
tokens in a fixed order: a reader marks the tokens it takes as used, so the
order decides which reading wins ("at 1500 hours" is a time before it can be
a count, "rover 5" an identity before it can be a number).
"""

from __future__ import annotations

from .analysis import Analysis
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
    words, subject, predicate, attributes, positive, negated = content.content_words(s)
    ids, all_ids = identities.identity_sets(s)
    owners, named, roles, personal = people.people_sets(s)
    return Analysis(
        text=s.text,
        content=frozenset(words),
        subject=frozenset(subject),
        predicate=frozenset(predicate),
        attributes=frozenset(attributes),
        ids=ids,
        all_ids=all_ids,
        owners=owners,
        people=named,
        roles=roles,
        places=tuple(s.places),
        subject_places=tuple(s.subject_places),
        quantities=numbers.quantity_records(s),
        times=frozenset(s.times),
        time_text=tuple(s.time_text),
        days={k: frozenset(v) for k, v in s.days.items()},
        axes={k: frozenset(v) for k, v in s.axes.items()},
        axis_words=s.axis_words,
        positive=frozenset(positive - negated),
        negated=frozenset(negated - positive),
        hedged=s.hedged,
        qualified=s.qualified,
        retracts=s.retracts,
        personal=personal,
        words=content.text_words(s),
    )
