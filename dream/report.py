"""A run's report: counts and time per stage, clusters with their Kuramoto order, the
coherence of the whole, the field stability before and after, and what was
strengthened, linked, found disputed and synthesised."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from collective.core import scoring, wave

from .consolidate import Outcome, relation_counts
from .field import current_strength
from .stages.select import Selection

if TYPE_CHECKING:
    from .port import DreamPort

SHOWN = 10  # examples of each kind the report lists


def stability_before_after(port: DreamPort, index, outcome: Outcome, now: float) -> dict:
    """Field stability of every memory recall can return, before the run and as the run
    leaves it; the index keeps each one's amplitude, origin, age and category."""
    field, trust = outcome.field, port.trust_scores()
    labels = index.live_labels()
    half_lives, floor = port.settings.half_lives, port.settings.fade_threshold
    before = index.strengths_at(labels, trust, now, half_lives)
    fading = index.fading_at(labels, now, half_lives)
    ratio = np.ones(index.label_count)
    at = index.labels_of(field.ids)
    known = (at >= 0) & (field.start_amplitude > 0)
    ratio[at[known]] = field.amplitude[known] / field.start_amplitude[known]
    made = [{"id": m.id, "amplitude": m.amplitude, "origin_agent": m.origin_agent, "created_at": m.created_at,
             "category": m.category} for m in outcome.synthesised]
    extra = scoring.row_strengths(made, trust, now, half_lives) if made else np.zeros(0)
    extra_fading = scoring.row_fading(made, now, half_lives) if made else np.zeros(0)
    return {"before": round(scoring.field_stability(before, faded=fading < floor), 6),
            "after": round(scoring.field_stability(np.concatenate([before * ratio[labels], extra]),
                                                   faded=np.concatenate([fading * ratio[labels], extra_fading]) < floor),
                           6)}


def cluster_rows(run_id: str, outcome: Outcome) -> list[dict]:
    """dream_clusters rows: clusters of two or more memories."""
    ids = outcome.field.ids
    return [{"run_id": run_id, "cluster_id": r.cluster_id, "memory_ids": [ids[k] for k in r.members.tolist()],
             "order_param": round(r.order_after, 6)} for r in outcome.clusters if len(r.members) > 1]


def coherence(outcome: Outcome) -> float:
    """Size-weighted mean order parameter of the clusters of two or more."""
    real = [r for r in outcome.clusters if len(r.members) > 1]
    if not real:
        return 0.0
    sizes = np.array([len(r.members) for r in real], dtype=np.float64)
    return float(np.dot(sizes, [r.order_after for r in real]) / sizes.sum())


def build(run_id: str, branch: str, base: str, selection: Selection, outcome: Outcome, stability: dict, *,
          jobs: int, review: bool) -> dict:
    field, pruned = outcome.field, outcome.pruned
    strengthened = sorted(outcome.folded)
    synced = int(np.count_nonzero(np.abs(np.angle(np.exp(1j * (field.phase - np.array(
        [r["phase"] for r in field.rows]))))) > 1e-9)) if len(field) else 0
    real = sorted((r for r in outcome.clusters if len(r.members) > 1), key=lambda r: (-len(r.members), r.cluster_id))
    return {
        "run": run_id, "branch": branch, "base": base, "mode": "full" if selection.full else "incremental",
        "status": "review" if review else "merged", "jobs": jobs,
        "counts": {"selected": len(field), "changed": selection.changed, "neighbours": selection.neighbours,
                   "pairs": len(outcome.pairs), **relation_counts(outcome.pairs),
                   "strengthened": len(strengthened), "synchronised": synced, "faded": len(pruned.faded),
                   "advised": len(pruned.advised), "spared": len(pruned.spared), "transferred": outcome.transferred,
                   "linked": len(outcome.links), "cross_cluster": outcome.cross_links, "clusters": len(real),
                   "hallucinated": len(outcome.synthesised)},
        "clusters": [{"id": r.cluster_id, "size": len(r.members), "order": round(r.order_after, 4)}
                     for r in real[:SHOWN]],
        "coherence": round(coherence(outcome), 6),
        "stability": stability,
        "strengthened": [{"id": i, "amplitude": round(float(field.amplitude[field.position[i]]), 6)}
                         for i in strengthened[:SHOWN]],
        "disputed": [p.to_dict() for p in outcome.pairs if p.relation == wave.DESTRUCTIVE][:SHOWN],
        "synthesised": [{"id": m.id, "summary": m.summary, "parents": m.parents} for m in outcome.synthesised],
        "pruned": [{"id": field.rows[k]["id"], "strength": round(float(s), 6)}
                   for k, s in zip(pruned.faded, current_strength(field)[pruned.faded])][:SHOWN],
        "coaccess_folded": {i: list(v) for i, v in outcome.folded.items()},
    }
