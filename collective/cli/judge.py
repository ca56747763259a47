"""Ask the judge about two texts, without an agent."""

from __future__ import annotations

import click

from ..reports import Judgement, documented
from .common import cli_errors, emit, json_option


@click.command("judge")
@click.argument("a")
@click.argument("b")
@click.option("--cross-encoder", "cascade", is_flag=True,
              help="Judge as the cascade does: the cross-encoder reads the pair when the learned judge "
                   "is unsure or would absorb it (as [merge] cross_encoder = true makes a pull).")
@json_option
@documented(Judgement)
def judge_cmd(a, b, cascade, as_json):
    """How two memories relate: constructive, destructive, partial or independent.

    Prints the relation, a confidence and the reason (what a and b each say, in
    their own words), as the default judge gives them to the merge and the
    dream's detect stage: the slot readers weighed by the learned combiner.
    """
    from ..judge import compare_texts, default_judge
    with cli_errors():
        result = compare_texts(a, b, judge=default_judge(cascade=cascade))
    emit(result, as_json=as_json,
         text=lambda r: f"{r['relation']} (confidence {r['confidence']:.2f}, cosine {r['similarity']:.2f}): {r['reason']}")


COMMANDS = (judge_cmd,)
