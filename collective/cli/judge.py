"""Ask the judge about two texts, without an agent."""

from __future__ import annotations

import click

from ..reports import Judgement, documented
from .common import cli_errors, emit, json_option


@click.command("judge")
@click.argument("a")
@click.argument("b")
@json_option
@documented(Judgement)
def judge_cmd(a, b, as_json):
    """How two memories relate: constructive, destructive, partial or independent.

    Prints the relation, a confidence and the reason (what a and b each say, in
    their own words), as the default judge gives them to the merge and the
    dream's detect stage: the slot readers and the learned combiner, with the
    cross-encoder on the pairs they leave open.
    """
    from ..judge import compare_texts
    with cli_errors():
        result = compare_texts(a, b)
    emit(result, as_json=as_json,
         text=lambda r: f"{r['relation']} (confidence {r['confidence']:.2f}, cosine {r['similarity']:.2f}): {r['reason']}")


COMMANDS = (judge_cmd,)
