"""The child process that runs cwl_eval (the ``cwl-eval`` package's C/W/L measures), so
that what it prints or raises cannot end searcheval.

Protocol, one request per process. stdin holds one pickle::

    {"qrels": [(query_id, doc_id, grade), ...],
     "rankings": {judged_only: {query_id: [(doc_id, element_type), ...]}},  # rank order
     "costs": {element_type: cost} or None,
     "jobs": [(gains, class name, args, judged_only, depth), ...]}

``gains`` is ("graded", min_rel, max_rel) or ("binary", rel): the grades become gains as
ir_measures' cwl_eval provider makes them (its IrmQrelHandler, a negative grade counted
as 0 first); ``depth`` None, or the ranks kept of each ranking (RBP@k). A document's
element type is its doc id when the costs are per document.
stdout receives one pickle: per job ``{query_id: [EU, ETU, EC, ETC, ED, ResEU, ResETU,
ResEC, ResETC, ResED]}``. Exit code :data:`NOT_INSTALLED`: cwl_eval or
ir_measures cannot be imported; :data:`FAILED`: it raised (message on stderr). Run by
path, as ``pytrec_worker``: the searcheval package stays out of the child.
"""

from __future__ import annotations

import logging
import os
import pickle
import sys

NOT_INSTALLED = 3
FAILED = 4
HORIZON = 1000  # cwl_eval's --max_depth default


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]  # run by path: this folder's modules must not shadow top-level ones
    answer = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stdout is reserved for the answer
    try:
        from cwl.ruler import cwl_ruler
        from cwl.ruler.ranking import RankingMaker
        from ir_measures.providers.cwl_eval import IrmQrelHandler
    except ImportError as exc:
        print(exc, file=sys.stderr)
        return NOT_INSTALLED
    logging.getLogger("cwl").disabled = True  # as ir_measures: no cwl.log
    payload = pickle.load(sys.stdin.buffer)
    answers = []
    try:
        for gains, name, args, judged_only, depth in payload["jobs"]:
            handler = _handler(IrmQrelHandler, gains, payload["qrels"])
            metric = getattr(cwl_ruler, name)(*args)
            metric.residuals = True
            values = {}
            for query, docs in payload["rankings"][judged_only].items():
                maker = RankingMaker(query, handler, payload["costs"], max_gain=1.0,
                                     min_gain=0.0, max_cost=1.0, min_cost=1.0, max_n=HORIZON)
                for doc, element_type in docs[:depth]:
                    maker.add(doc, element_type)
                metric.measure(maker.get_ranking())
                values[query] = [metric.expected_utility, metric.expected_total_utility,
                                 metric.expected_cost, metric.expected_total_cost,
                                 metric.expected_items, metric.residual_expected_utility,
                                 metric.residual_expected_total_utility,
                                 metric.residual_expected_cost,
                                 metric.residual_expected_total_cost,
                                 metric.residual_expected_items]
            answers.append(values)
    except Exception as exc:  # anything cwl_eval raises goes back as one line
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return FAILED
    pickle.dump(answers, answer, protocol=pickle.HIGHEST_PROTOCOL)
    answer.close()
    return 0


def _handler(handler_class, gains: tuple, qrels: list):
    """ir_measures' qrels handler for cwl_eval: graded (min_rel, max_rel) or binary (rel)."""
    if gains[0] == "graded":
        handler = handler_class(None, gains[1], gains[2])
    else:
        handler = handler_class(gains[1], None, None)
    for query, doc, grade in qrels:
        handler.put_value(query, doc, max(grade, 0))  # ir_measures' CwlEvaluator: trec_eval's
    return handler


if __name__ == "__main__":
    sys.exit(main())
