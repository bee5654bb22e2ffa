"""The child process that runs pytrec_eval, so a crash in its C code cannot end searcheval.

Protocol, one request per process. stdin holds one pickle::

    {"queries": [query_id, ...], "qrels": columns, "run": columns,
     "jobs": [(relevance_level, judged_only, [request, ...], gains), ...]}

A query of ``queries`` without a judgment (a run query the qrels lack, evaluated under
--like trectools) gets one of grade 0, for a document no ranking holds: trec_eval evaluates
only the queries its qrels judge, and such a query scores as one with no relevant document.
``gains`` (may be left out): None, or ``[(grade, gain), ...]``, each such grade of the
job's qrels rewritten to its gain (how trec_eval's ndcg_cut is given gains). Columns are
``(rows per query, doc vocabulary, doc codes as int64 bytes, values as int64 / float64
bytes)``, rows grouped by query in the order of ``queries``. stdout receives one pickle:
pytrec_eval's ``{query_id: {key: value}}`` for each job. Exit code :data:`NOT_INSTALLED`:
no pytrec_eval; :data:`FAILED`: it raised (message on stderr); negative: the signal.

Run by path, not as ``-m searcheval...``, with a payload of built-in types only: the
searcheval package (and numpy) stay out of the child, which then starts quickly.
"""

from __future__ import annotations

import array
import os
import pickle
import sys

NOT_INSTALLED = 3
FAILED = 4


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]  # run by path: this folder's modules must not shadow top-level ones
    # trec_eval's C code may print; stdout is reserved for the answer.
    answer = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    try:
        import pytrec_eval_ext
    except ImportError as exc:
        print(exc, file=sys.stderr)
        return NOT_INSTALLED
    payload = pickle.load(sys.stdin.buffer)
    answers = []
    try:
        qrels = _nested(payload["queries"], *payload["qrels"], "q")
        run = _nested(payload["queries"], *payload["run"], "d")
        _judge_unjudged_queries(qrels, run)
        # Each evaluator is built just before its evaluate() and dropped after: trec_eval
        # keeps measure parameters in global tables.
        for level, judged_only, requests, *gains in payload["jobs"]:
            evaluator = pytrec_eval_ext.RelevanceEvaluator(
                query_relevance=_relabelled(qrels, gains[0] if gains else None),
                measures=set(requests),
                relevance_level=level, judged_docs_only_flag=judged_only)
            answers.append(evaluator.evaluate(run))
            del evaluator
    except Exception as exc:  # anything pytrec_eval raises goes back as one line
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return FAILED
    pickle.dump(answers, answer, protocol=pickle.HIGHEST_PROTOCOL)
    answer.close()
    return 0


def _judge_unjudged_queries(qrels: dict, run: dict) -> None:
    """One judgment of grade 0, for a document its ranking lacks, to each query without one."""
    for query, judged in qrels.items():
        if not judged:
            absent = "searcheval-no-judgment"
            while absent in run.get(query, {}):
                absent += "_"
            judged[absent] = 0


def _relabelled(qrels: dict, gains: list | None) -> dict:
    """``qrels`` with each grade listed in ``gains`` rewritten to its gain."""
    if not gains:
        return qrels
    table = dict(gains)
    return {q: {d: table.get(g, g) for d, g in docs.items()} for q, docs in qrels.items()}


def _nested(queries: list, counts: list, vocabulary: list, codes: bytes, packed: bytes,
            code: str) -> dict:
    """{query_id: {doc_id: value}} from columns grouped by query (built at C speed)."""
    values = array.array(code)
    values.frombytes(packed)
    indices = array.array("q")
    indices.frombytes(codes)
    doc_ids = list(map(vocabulary.__getitem__, indices))
    out, start = {}, 0
    for query_id, count in zip(queries, counts):
        out[query_id] = dict(zip(doc_ids[start:start + count], values[start:start + count]))
        start += count
    return out


if __name__ == "__main__":
    sys.exit(main())
