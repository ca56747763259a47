"""Synchronise: Kuramoto phase coupling over the agreeing (constructive) ANN edges of one
cluster, dphi_i/dt = K / deg_i * sum_j w_ij sin(phi_j - phi_i), with wrapped phases.
Contradicting neighbours are not coupled: their disagreement is what phase records."""

from __future__ import annotations

import math

import numpy as np

from collective.core import wave


def synchronise(phase: np.ndarray, edges: np.ndarray, weights: np.ndarray, *, coupling: float, steps: int,
                dt: float) -> np.ndarray:
    """New phases in [0, 2pi) after `steps` Euler steps; edges (m, 2) of local indices."""
    phase = np.asarray(phase, dtype=np.float64).copy()
    if len(edges) == 0:
        return phase
    a, b = edges[:, 0], edges[:, 1]
    degree = np.zeros(len(phase))
    np.add.at(degree, a, weights)
    np.add.at(degree, b, weights)
    degree[degree == 0] = 1.0
    for _ in range(steps):
        pull = np.zeros(len(phase))
        push = weights * np.sin(phase[b] - phase[a])
        np.add.at(pull, a, push)
        np.add.at(pull, b, -push)
        phase = np.mod(phase + dt * coupling * pull / degree, 2 * math.pi)
    return np.where(phase >= 2 * math.pi, 0.0, phase)


def order(phase: np.ndarray) -> float:
    """The Kuramoto order parameter r = |mean e^{i phi}|."""
    return wave.kuramoto_order(list(map(float, phase)))
