"""Kernels of the C/W/L measures (``measures.cwl_specs``): each one's C vector (or W
vector) as cwl_eval's class computes it (cwl/ruler/measures/cwl_<name>.py), over a block
of queries, one a row, ranks along the columns; ``engine.cwl`` does the rest."""

from __future__ import annotations

import numpy as np

from ..measures import Measure, kernel_for
from .context import Ranked
from .cwl import HORIZON, cwl_value, graded_gains, rbp_gains, scaled_rbp_gains

RANKS = np.arange(1, HORIZON + 1, dtype=np.float64)  # cwl_eval's rank = i + 1


def _inst_c(gains, costs, p):
    """cwl_inst.py: T_i = T - (gain so far); C = ((i + T + T_i - 1) / (i + T + T_i))^2."""
    T = p["T"]
    left = T - np.cumsum(gains, axis=1)
    return (((RANKS + T + left) - 1.0) / ((RANKS + T) + left)) ** 2.0


def _insq_c(gains, costs, p):
    """cwl_insq.py: C = ((i + 2T - 1) / (i + 2T))^2, whatever the gains."""
    twice = 2.0 * p["T"]
    return np.broadcast_to(((RANKS + twice - 1.0) / (RANKS + twice)) ** 2.0, gains.shape)


def _below(running: np.ndarray, limit) -> np.ndarray:
    """1 while ``running`` stays below ``limit`` (its first rank at or above it and every
    later one: 0), as cwl_bpm.py's while loops."""
    return np.logical_and.accumulate(running < limit, axis=1)


def _bpm_c(gains, costs, p):
    """cwl_bpm.py's static BPM: go on while the gain so far is below T and the cost so far
    below K (the cutoff)."""
    return (_below(np.cumsum(gains, axis=1), p["T"])
            & _below(np.cumsum(costs, axis=1), p["cutoff"])).astype(np.float64)


def _bpm_dynamic_c(gains, costs, p):
    """cwl_bpm.py's BPMDCWLMetric: T moves by hb (gain - gain_med) after each rank read
    (added in rank order, as its loop adds); the cost limit stays K: cwl_eval's cost loop
    adds hc's change to T, which nothing reads after it."""
    steps = p["hb"] * (gains[:, :-1] - p["gain_med"])
    limit = np.cumsum(np.concatenate((np.full((len(gains), 1), p["T"]), steps), axis=1), axis=1)
    return (_below(np.cumsum(gains, axis=1), limit)
            & _below(np.cumsum(costs, axis=1), p["cutoff"])).astype(np.float64)


def _tbg_w(gains, costs, p):
    """cwl_tbg.py: W(i) proportional to h 2^(-t/h) / ln 2, t the cost above rank i."""
    h = p["halflife"]
    above = np.concatenate((np.zeros((len(costs), 1)), np.cumsum(costs, axis=1)[:, :-1]), axis=1)
    weight = (h * (2.0 ** (-above / h))) / np.log(2.0)
    return weight / np.cumsum(weight, axis=1)[:, -1:]  # its norm adds in rank order


def _umeasure_w(gains, costs, p):
    """cwl_umeasure.py: W(i) proportional to max(0, 1 - t / L), t the cost above rank i;
    the last rank gets 0."""
    above = np.concatenate((np.zeros((len(costs), 1)), np.cumsum(costs, axis=1)[:, :-2]), axis=1)
    weight = np.maximum(0.0, 1.0 - above / p["L"])
    norm = np.cumsum(weight, axis=1)[:, -1:]
    return np.concatenate((weight, np.zeros((len(costs), 1))), axis=1) / norm


def _truncated(c: np.ndarray, k: int) -> np.ndarray:
    """C from rank k on is 0 (NERR8, NERR9: cwl_eval's ``i < k - 1``)."""
    c = np.array(c)
    c[:, max(k - 1, 0):] = 0.0
    return c


def _nerr8_c(gains, costs, p):
    return _truncated(1.0 - gains, p["cutoff"])


def _nerr9_c(gains, costs, p):
    return _truncated((RANKS / (RANKS + 1.0)) * (1.0 - gains), p["cutoff"])


def _nerr10_c(gains, costs, p):
    return p["p"] * (1.0 - gains)


def _nerr11_c(gains, costs, p):
    twice = 2.0 * p["T"]
    return (((RANKS + twice - 1.0) / (RANKS + twice)) ** 2.0) * (1.0 - gains)


def _sdcg_c(gains, costs, p):
    """cwl_dcg.py's NDCGCWLMetric: C(i) = log2(i + 1) / log2(i + 2) for i < k, else 0
    (each log2 as Python's math.log(x, 2): log(x) / log(2))."""
    log2 = np.log(2.0)
    c = np.where(RANKS < p["cutoff"], (np.log(RANKS + 1) / log2) / (np.log(RANKS + 2) / log2),
                 0.0)
    return np.broadcast_to(c, gains.shape)


def _rbp_c(gains, costs, p):
    """cwl_rbp.py: C = p at every rank."""
    return np.full(gains.shape, p["p"])


def _graded(c_vector=None, w_vector=None):
    def kernel(r: Ranked, m: Measure) -> np.ndarray:
        return cwl_value(r, m, graded_gains(r, m), c_vector, w_vector)
    return kernel


cwl_inst = kernel_for("INST")(_graded(_inst_c))
cwl_insq = kernel_for("INSQ")(_graded(_insq_c))
cwl_bpm = kernel_for("BPM")(_graded(_bpm_c))
cwl_bpm_dynamic = kernel_for("BPMD")(_graded(_bpm_dynamic_c))
cwl_tbg = kernel_for("TBG")(_graded(w_vector=_tbg_w))
cwl_umeasure = kernel_for("U")(_graded(w_vector=_umeasure_w))
cwl_nerr8 = kernel_for("NERR8")(_graded(_nerr8_c))
cwl_nerr9 = kernel_for("NERR9")(_graded(_nerr9_c))
cwl_nerr10 = kernel_for("NERR10")(_graded(_nerr10_c))
cwl_nerr11 = kernel_for("NERR11")(_graded(_nerr11_c))
cwl_sdcg = kernel_for("SDCG")(_graded(_sdcg_c))


def rbp_column(r: Ranked, m: Measure, top: np.ndarray) -> np.ndarray:
    """RBP(value=...): cwl_eval's columns for RBP with RBP's own gains (``top``: each
    query's largest grade, for trec_eval 10's scaled ones)."""
    gains = rbp_gains(r, m, lambda: scaled_rbp_gains(r, top))
    return cwl_value(r, m, gains, _rbp_c)
