"""Every choice that changes a number is named in every output that states the settings
(issue 12's rule): --ignore-identical-ids given alone and --costs FILE.

References: pytrec_eval's nDCG@10 of the run with the identical ids popped by hand, as
BEIR's evaluation.py does (``results[qid].pop(qid)``); the costs' numbers are held to
cwl_eval elsewhere (tests/test_batch_costs.py, test_cwl_reference.py): here the note only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import searcheval
from cli_runner import batch, cli
from trec_dicts import trec_dicts

ROOT = Path(__file__).resolve().parent.parent
QRELS = {"q1": {"q1": 1, "d2": 1}, "q2": {"d3": 1}}
RUN = {"q1": {"q1": 3.0, "d2": 2.0, "d9": 1.0}, "q2": {"d3": 1.0}}
IDS_LINE = ("identical ids: a retrieved document whose id is its query's id is dropped "
            "(BEIR's rule, --ignore-identical-ids): 1 dropped")
PINECONE = ROOT / "fixtures" / "seeds"
COSTS = ROOT / "fixtures" / "cwl" / "pinecone.costs"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    qrels, run = tmp_path / "b.qrels", tmp_path / "b.run"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items()
                             for d, g in docs.items()))
    run.write_text("".join(f"{q} Q0 {d} {r} {s} t\n" for q, docs in RUN.items()
                           for r, (d, s) in enumerate(docs.items(), 1)))
    return qrels, run


def beir_ndcg10() -> float:
    """pytrec_eval's ndcg_cut_10 on the run with each query's own id popped (BEIR)."""
    import pytrec_eval
    popped = {q: {d: s for d, s in docs.items() if d != q} for q, docs in RUN.items()}
    per_query = pytrec_eval.RelevanceEvaluator(QRELS, {"ndcg_cut_10"}).evaluate(popped)
    return sum(v["ndcg_cut_10"] for v in per_query.values()) / len(per_query)


@pytest.mark.parametrize("fmt, prefix", [("table", ""), ("markdown", "- "), ("latex", "% ")])
def test_identical_ids_alone_are_named_in_the_foot(files, fmt, prefix):
    out = cli("evaluate", *files, "-m", "nDCG@10", "--ignore-identical-ids", "-f", fmt)
    assert out.exit_code == 0, out.stderr
    assert prefix + IDS_LINE in out.stdout.splitlines()
    assert f"{beir_ndcg10():.4f}" in out.stdout  # 0.8066, not the 1.0000 of the full run


def test_identical_ids_are_in_the_json_settings(files):
    out = cli("evaluate", *files, "-m", "nDCG@10", "--ignore-identical-ids", "-f", "json")
    document = json.loads(out.stdout)
    assert document["settings"]["ignore_identical_ids"] is True
    assert document["settings"]["identical_ids_dropped"] == 1
    assert document["summary"]["nDCG@10"] == pytest.approx(beir_ndcg10(), abs=1e-12)
    plain = json.loads(cli("evaluate", *files, "-m", "nDCG@10", "-f", "json").stdout)
    assert plain["settings"]["ignore_identical_ids"] is False
    assert plain["settings"]["costs"] is None


def test_identical_ids_and_costs_in_the_notebook_view(files):
    results = searcheval.evaluate(str(files[0]), str(files[1]), ["nDCG@10"],
                                  ignore_identical_ids=True, costs={"d2": 2.0})
    html = results._repr_html_()
    assert "BEIR&#x27;s rule" in html or "BEIR's rule" in html
    assert "costs: &lt;costs&gt; (1 document;" in html or "costs: <costs> (1 document;" in html


def test_costs_are_named_in_the_foot_and_the_json_settings():
    base = [PINECONE / "pinecone.qrels", PINECONE / "pinecone.run", "-m", "TBG(halflife=5)"]
    table = cli("evaluate", *base, "--costs", COSTS)
    assert table.exit_code == 0, table.stderr
    assert any(line.startswith(f"costs: {COSTS} (") for line in table.stdout.splitlines())
    assert "costs:" not in cli("evaluate", *base).stdout
    document = json.loads(cli("evaluate", *base, "--costs", COSTS, "-f", "json").stdout)
    assert document["settings"]["costs"]["path"] == str(COSTS)


def test_batch_summary_names_identical_ids_and_costs(files, tmp_path):
    outdir = tmp_path / "out"
    out = batch(files[0], files[1], "-o", outdir, "-m", "nDCG@10", "--ignore-identical-ids",
                "--costs", COSTS)
    assert out.exit_code == 0, out.stderr
    settings = json.loads((outdir / "summary.json").read_text())["settings"]
    assert settings["ignore_identical_ids"] is True
    assert settings["costs"]["path"] == str(COSTS)
    per_run = json.loads((outdir / "runs" / "b.run.json").read_text())
    assert per_run["settings"]["identical_ids_dropped"] == 1


# ---- defect 5: -f trec, csv and wide-csv state the query policy on stderr ---------------

LIBRARY_QRELS = ROOT / "fixtures" / "seeds" / "library.qrels"
LIBRARY_RUN = ROOT / "fixtures" / "seeds" / "library.run"
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"


def pytrec_eval_map() -> tuple[float, int]:
    """(MAP, queries averaged) as trec_eval without -c computes them: pytrec_eval evaluates
    only the run's queries that the qrels judge (the library run lacks q4)."""
    import pytrec_eval
    qrels, run = trec_dicts(LIBRARY_QRELS, LIBRARY_RUN)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    return sum(v["map"] for v in per_query.values()) / len(per_query), len(per_query)


def test_trec_format_says_on_stderr_why_its_mean_is_not_trec_eval_s():
    reference, in_both = pytrec_eval_map()  # 0.8750 over 4 queries
    out = cli("evaluate", LIBRARY_QRELS, LIBRARY_RUN, "-m", "map", "-f", "trec")
    assert out.stdout == "map                   \tall\t0.7000\n"  # trec_eval -c's text
    assert out.stderr == (
        "searcheval: note: not trec_eval's numbers with the same flags: the means average all "
        f"5 qrels queries, the 1 absent from the run (q4) scoring 0, as trec_eval -c does; "
        f"trec_eval without -c averages the {in_both} in both: --missing skip or --like "
        "trec_eval gives its numbers\n")
    for flags in (["--missing", "skip"], ["--like", "trec_eval"]):  # the note's advice holds
        told = cli("evaluate", LIBRARY_QRELS, LIBRARY_RUN, "-m", "map", "-f", "trec", *flags)
        assert told.stdout == f"map                   \tall\t{reference:.4f}\n"


@pytest.mark.parametrize("flags", [["-c"], ["--missing", "skip"], ["--missing", "zero"]])
def test_trec_format_is_silent_when_trec_eval_with_the_same_flags_agrees(flags):
    out = cli("evaluate", LIBRARY_QRELS, LIBRARY_RUN, "-m", "map", "-f", "trec", *flags)
    assert out.exit_code == 0 and out.stderr == ""


def test_trec_format_names_a_tie_rule_and_identical_ids_trec_eval_does_not_have(files):
    out = cli("evaluate", *files, "-m", "map", "-f", "trec", "-c", "--ties", "input",
              "--ignore-identical-ids")
    assert out.stderr.count("\n") == 1
    assert "ties: input (score descending, then the order of the lines in the run file)" in out.stderr
    assert "documents whose id is their query's id dropped (--ignore-identical-ids): 1" in out.stderr


@pytest.mark.parametrize("fmt", ["csv", "wide-csv"])
def test_csv_formats_state_the_policy_and_the_zero_filled_on_stderr(fmt):
    out = cli("evaluate", LIBRARY_QRELS, LIBRARY_RUN, "-m", "map", "-f", fmt)
    assert out.stderr == ("searcheval: note: settings: 5 queries averaged (missing=zero, as "
                          "trec_eval -c: every qrels query; 1 absent from the run scored 0: "
                          "q4); ties: trec_eval; relevance level: 1\n")
    skip = cli("evaluate", LIBRARY_QRELS, LIBRARY_RUN, "-m", "map", "-f", fmt, "--missing", "skip")
    assert "4 queries averaged (missing=skip, as trec_eval without -c" in skip.stderr
    assert "1 absent from the run left out: q4" in skip.stderr


def test_csv_states_compat_and_the_collection_size_when_given():
    # m_utility.c: a*rel_ret + b*(ret - rel_ret) + c*(R - rel_ret) + d*(N + rel_ret - ret - R);
    # utility.0,0,0,1 with -N 100 is 100 + rel_ret - ret - R: q1 (R 1, ret 2, rel_ret 1) 98,
    # q2 (2, 2, 2) 98, q3 (1, 3, 1) 97, q5 (1, 1, 1) 99; q4 absent from the run: 9.0.8 never
    # evaluates it (0), 10.0 ranks its placeholder, one unjudged document (1, 1, 0): 98.
    # Means over the 5 queries: 392 / 5 = 78.4 under 9, 490 / 5 = 98 under 10.
    base = ["evaluate", LIBRARY_QRELS, LIBRARY_RUN, "-m", "utility.0,0,0,1", "-N", "100",
            "-f", "csv"]
    for compat, mean in (("9", "78.4"), ("10", "98.0")):
        out = cli(*base, "--compat", compat)
        assert out.stdout.splitlines()[-1] == f"library.run,all,\"utility(coeffs=[0,0,0,1])\",{mean}"
        assert out.stderr == (
            "searcheval: note: settings: 5 queries averaged (missing=zero, as trec_eval -c: "
            "every qrels query; 1 absent from the run scored 0: q4); ties: trec_eval; relevance "
            "level: 1" + ("; semantics: trec_eval 10.0 (--compat 10)" if compat == "10" else "")
            + "; collection: 100 documents (-N)\n")


def test_compare_csv_names_the_test_and_the_correction():
    runs = [CRANFIELD / "results" / f"results_{n}.txt" for n in ("english_bm25", "custom_bm25")]
    out = cli("compare", CRANFIELD / "qrel", *runs, "-m", "AP", "--test", "wilcoxon", "-f", "csv")
    assert out.exit_code == 0, out.stderr
    test_line = [line for line in out.stderr.splitlines() if "note: test: " in line]
    assert len(test_line) == 1
    assert "Wilcoxon signed-rank test" in test_line[0] and "Holm-corrected" in test_line[0]
    bonferroni = cli("compare", CRANFIELD / "qrel", *runs, "-m", "AP", "--test", "t",
                     "--correction", "bonferroni", "-f", "csv")
    assert "Bonferroni-corrected" in bonferroni.stderr


# ---- defect 6: -l N names the measures that do not read the level --------------------------

CRANFIELD_RUN = CRANFIELD / "results" / "results_english_bm25.txt"
LEVEL_NOTE = ("  the level does not change nDCG@10, RBP(p=0.8): they read the grades themselves "
              "or no relevance (as in trec_eval)")


def pytrec_eval_mean(measure: str, level: int) -> float:
    """pytrec_eval's (trec_eval's code) mean of ``measure`` over the run's judged queries at
    ``level``: trec_eval reads the grades as nDCG's gains and never the level there, and
    AP's relevant documents are those graded ``level`` or more."""
    import pytrec_eval
    qrels, run = trec_dicts(CRANFIELD / "qrel", CRANFIELD_RUN)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {measure},
                                               relevance_level=level).evaluate(run)
    return sum(v[measure] for v in per_query.values()) / len(per_query)


def test_a_level_other_than_1_names_the_measures_it_does_not_change():
    base = ["evaluate", CRANFIELD / "qrel", CRANFIELD_RUN, "-m", "nDCG@10", "-m", "RBP",
            "-m", "AP", "--missing", "skip"]
    shown = {level: json.loads(cli(*base, "-l", level, "-f", "json").stdout)
             for level in (1, 2, 3)}
    for level in (1, 2, 3):  # the values are trec_eval's (pytrec_eval's at that level)
        summary = shown[level]["summary"]
        assert summary["nDCG@10"] == pytest.approx(pytrec_eval_mean("ndcg_cut_10", level),
                                                   abs=1e-12)
        assert summary["AP"] == pytest.approx(pytrec_eval_mean("map", level), abs=1e-12)
        assert summary["RBP(p=0.8)"] == shown[1]["summary"]["RBP(p=0.8)"]
    for level in (2, 3):
        assert shown[level]["summary"]["AP"] != shown[1]["summary"]["AP"]  # AP reads it
        assert shown[level]["settings"]["relevance_level_not_read_by"] == ["nDCG@10", "RBP(p=0.8)"]
    assert shown[1]["settings"]["relevance_level_not_read_by"] == []
    table = cli(*base, "-l", "2").stdout.splitlines()
    assert LEVEL_NOTE in table
    assert LEVEL_NOTE not in cli(*base).stdout.splitlines()
    assert "relevance level: 2 (not read by nDCG@10, RBP(p=0.8))" in cli(*base, "-l", "2", "-f",
                                                                        "csv").stderr


# ---- defect 7: agree states its settings and what each leaderboard column averages --------

CUSTOM_RUN = CRANFIELD / "results" / "results_custom_bm25.txt"


def zero_filled_ap(qrels: dict, run: dict) -> float:
    """trec_eval -c's MAP from pytrec_eval (which evaluates the run's judged queries only):
    the sum over the run's queries divided by every qrels query, a missing one adding 0."""
    import pytrec_eval
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    return sum(v["map"] for v in per_query.values()) / len(qrels)


def test_agree_states_its_settings_and_the_queries_of_each_column(tmp_path):
    full, run = trec_dicts(CRANFIELD / "qrel", CUSTOM_RUN)
    half = tmp_path / "halfB.qrels"  # the queries numbered up to 100
    half.write_text("".join(line + "\n" for line in (CRANFIELD / "qrel").read_text().splitlines()
                            if int(line.split()[0]) <= 100))
    half_dict, _ = trec_dicts(half, CUSTOM_RUN)
    lacked = len(set(full) - set(run))  # query 15: in both qrels, not in the custom run
    assert (len(full), len(half_dict), lacked) == (225, 100, 1)
    args = ["agree", CRANFIELD / "qrel", half, CRANFIELD_RUN, CUSTOM_RUN, "-m", "AP"]
    table = cli(*args)
    assert table.exit_code == 0, table.stderr
    lines = table.stdout.splitlines()
    assert ("means over 225 queries (1 absent from a run, scored 0 there) under qrel, 100 "
            "queries (1 absent from a run, scored 0 there) under halfB.qrels") in lines
    assert ("settings of the leaderboards: missing=zero: every qrels query counts; one a run "
            "lacks scores 0 (trec_eval -c)") in lines
    assert "ties: score descending, then doc_id descending (byte order), as trec_eval" in lines
    assert any(line.startswith("relevance level: 1 (grade >= level is relevant)") for line in lines)
    custom = next(line for line in lines if line.startswith("results_custom_bm25.txt"))
    assert custom.split()[1:] == [f"{zero_filled_ap(full, run):.4f}",
                                  f"{zero_filled_ap(half_dict, run):.4f}"]  # 0.2183, 0.1955
    document = json.loads(cli(*args, "-f", "json").stdout)
    board = document["leaderboards"][0]
    assert (board["queries_reference"], board["queries_other"]) == (225, 100)
    assert (board["zero_filled_reference"], board["zero_filled_other"]) == (1, 1)
    assert document["settings"]["missing"] == "zero"
    assert document["settings"]["relevance_level"] == 1
    assert document["settings"]["ties"] == "trec_eval"


# ---- defect 12: an option given explicitly wins over --like ranx's equal-query rule --------

RANX_OVERRIDDEN = ("ranx's own rule (the same queries in the qrels and the run, else refused) "
                   "overridden by the query policy given (-c or --missing)")


def pytrec_eval_rr(every_qrels_query: bool) -> float:
    """pytrec_eval's recip_rank over the library run's queries (it lacks q4), divided by the
    qrels queries (trec_eval -c: q4 adds 0) or by the queries in both (trec_eval)."""
    import pytrec_eval
    qrels, run = trec_dicts(LIBRARY_QRELS, LIBRARY_RUN)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    total = sum(v["recip_rank"] for v in per_query.values())
    return total / (len(qrels) if every_qrels_query else len(per_query))


@pytest.mark.parametrize("flags, every", [(["--missing", "zero"], True), (["-c"], True),
                                          (["--missing", "skip"], False)])
def test_like_ranx_yields_to_an_explicit_query_policy(flags, every):
    out = cli("evaluate", LIBRARY_QRELS, LIBRARY_RUN, "-m", "RR", "--like", "ranx", *flags,
              "-f", "json")
    assert out.exit_code == 0, out.stderr
    document = json.loads(out.stdout)
    assert document["summary"]["RR"] == pytest.approx(pytrec_eval_rr(every), abs=1e-12)
    assert any(RANX_OVERRIDDEN in note for note in document["notes"])


def test_like_ranx_alone_still_refuses_unequal_queries_and_says_how_to_override(tmp_path):
    out = cli("evaluate", LIBRARY_QRELS, LIBRARY_RUN, "-m", "RR", "--like", "ranx")
    assert out.exit_code == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1
    assert "give --missing zero or skip, missing= in the API, which wins over the preset's " \
        "rule" in out.stderr
    outdir = tmp_path / "out"
    refused = batch(LIBRARY_QRELS, LIBRARY_RUN, "-o", outdir, "-m", "RR", "--like", "ranx")
    assert refused.exit_code == 1  # the run is reported and skipped
    given = batch(LIBRARY_QRELS, LIBRARY_RUN, "-o", tmp_path / "given", "-m", "RR", "--like",
                  "ranx", "--missing", "zero")
    assert given.exit_code == 0, given.stderr
    summary = json.loads((tmp_path / "given" / "summary.json").read_text())
    assert summary["runs"][0]["summary"]["RR"] == pytest.approx(pytrec_eval_rr(True), abs=1e-12)


# ---- -f trec's note on num_rel: trec_eval -c recounts it, whatever -l says ---------------

BINARY_CASES = ROOT / "fixtures" / "trec_eval-binary" / "cases.jsonl.gz"


def stored_case(case_id: str) -> dict:
    import gzip
    with gzip.open(BINARY_CASES, "rt", encoding="utf-8") as lines:
        return next(case for case in map(json.loads, lines) if case["id"] == case_id)


def all_line(text: str, name: str) -> str:
    return next(line for line in text.splitlines() if line.split("\t")[0].strip() == name
                and line.split("\t")[1] == "all")


@pytest.mark.parametrize("case_id, level, recount, averaged", [
    # 10.0, -l 2, every qrels query in the run: trec_eval prints num_rel 0 (no grade 2);
    # -c's recount is the 39 qrels lines of grade 1 (grades 0 and 1 only)
    ("20261201-13", "2", 39, 3),
    # 9.0.8, -l 0 (grade 0 counts as relevant), one qrels query not in the run: trec_eval
    # sums 38 over the 7 in both; -c's recount is the 16 lines with a grade > 0
    ("20261201-60", "0", 16, 7),
])
def test_trec_format_says_num_rel_is_trec_eval_c_s_recount(tmp_path, case_id, level, recount,
                                                          averaged):
    case = stored_case(case_id)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(case["qrels"])
    run.write_text(case["run"])
    assert sum(float(line.split()[3]) > 0 for line in case["qrels"].splitlines()) == recount
    told = all_line(case["stock"]["stdout"], "num_rel").split("\t")[2]  # trec_eval, no -c
    base = ["evaluate", qrels, run, "-m", "num_rel", "-f", "trec", "-l", level,
            "--compat", case["version"]]
    out = cli(*base)  # missing=zero, trec_eval -c: the recount
    assert out.stdout == f"num_rel               \tall\t{recount}\n"
    assert out.stderr.startswith("searcheval: note: not trec_eval's numbers with the same flags: ")
    assert out.stderr.endswith(
        f"num_rel's all ({recount}) counts every judgment with a grade > 0 whatever -l says, as "
        f"trec_eval -c does, where trec_eval without -c sums the num_rel at level {level} of "
        f"the {averaged} queries in both ({told}): --missing skip or --like trec_eval gives "
        "its numbers\n")
    skip = cli(*base, "--missing", "skip")  # the note's advice: trec_eval's own line
    assert skip.stdout == all_line(case["stock"]["stdout"], "num_rel") + "\n"
    assert cli(*base, "-c").stderr == ""  # trec_eval -c prints the recount too
