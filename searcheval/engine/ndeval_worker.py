"""The child process that runs pyndeval (NIST's ndeval.c), so a crash in its C code
cannot end searcheval.

Protocol, one request per process. stdin holds one pickle::

    {"qrels": [(query_id, subtopic, doc_id, grade), ...],
     "runs": {judged_only: [(query_id, doc_id, score), ...]},
     "jobs": [(relevance_level, alpha, beta, [ndeval name, ...], judged_only), ...]}

stdout receives one pickle: pyndeval's ``{query_id: {name: value}}`` for each job.
Exit code :data:`NOT_INSTALLED`: pyndeval cannot be imported; :data:`FAILED`: it raised
(message on stderr); negative: the signal that killed it. Run by path, as
``pytrec_worker``: the searcheval package stays out of the child.
"""

from __future__ import annotations

import os
import pickle
import sys

NOT_INSTALLED = 3
FAILED = 4


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]  # run by path: this folder's modules must not shadow top-level ones
    answer = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # ndeval's C code may print; stdout is reserved for the answer
    try:
        import pyndeval
    except ImportError as exc:
        print(exc, file=sys.stderr)
        return NOT_INSTALLED
    payload = pickle.load(sys.stdin.buffer)
    answers = []
    try:
        for level, alpha, beta, names, judged_only in payload["jobs"]:
            evaluator = pyndeval.RelevanceEvaluator(payload["qrels"], names,
                                                    relevance_level=level, alpha=alpha,
                                                    beta=beta)
            answers.append(evaluator.evaluate(payload["runs"][judged_only]))
    except Exception as exc:  # anything pyndeval raises goes back as one line
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return FAILED
    pickle.dump(answers, answer, protocol=pickle.HIGHEST_PROTOCOL)
    answer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
