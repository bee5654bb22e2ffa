"""The reference engines' inputs, read here with str.split and not by searcheval: a
qrels and a run file as ``{query_id: {doc_id: grade}}`` and ``{query_id: {doc_id: score}}``
(pytrec_eval's, ir_measures' and ranx's dicts)."""

from __future__ import annotations

from pathlib import Path


def trec_dicts(qrels_path: Path, run_path: Path) -> tuple[dict, dict]:
    qrels: dict[str, dict[str, int]] = {}
    for line in Path(qrels_path).read_text().splitlines():
        query_id, _, doc_id, grade = line.split()
        qrels.setdefault(query_id, {})[doc_id] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for line in Path(run_path).read_text().splitlines():
        query_id, _, doc_id, _, score, _ = line.split()
        run.setdefault(query_id, {})[doc_id] = float(score)
    return qrels, run
