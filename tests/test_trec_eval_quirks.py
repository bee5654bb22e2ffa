"""trec_eval behaviours the stored binary cases show (or that issue 12, item A.5 reports
from the binaries), reproduced on every input path: the run's tag, a family asked twice,
a score beyond 32 bits, 10.0's refusal of a qrels query the run lacks."""

from __future__ import annotations

import gzip
import json
import warnings

import pytest

from cli_runner import cli
from searcheval.results import resolve_measures
from searcheval.settings import Settings
from searcheval.io.trec import read_qrels
from searcheval.scale.stream import evaluate_streaming
from test_trec_eval_binary import load_cases

QRELS = "q1 0 a 1\nq1 0 b 1\nq2 0 a 1\n"
# three tags; trec_eval's runid is the last line's ("last"), not the first's
RUN = "q1 Q0 a 1 3 first\nq1 Q0 b 2 2 middle\nq2 Q0 a 1 1 last\n"
SHAPES = {
    "fast": lambda text: text,
    "arrow": lambda text: text.replace("q1 ", "q1  ", 1),
    "python": lambda text: text.replace(" b ", " b\x1f ", 1),
    "comments": lambda text: "# a comment\n" + text + "# a last comment\n\n",
    "crlf": lambda text: text.replace("\n", "\r\n"),
    "no-final-newline": lambda text: text.rstrip("\n"),
}



def runid(output: str) -> str:
    [line] = [line for line in output.splitlines() if line.startswith("runid")]
    return line.split("\t")[2]


def test_trec_eval_names_the_run_by_its_last_lines_tag():
    """The reference: in every stored case where the binaries print runid, it is the tag
    of the run's last line (checked here so that the rule below has a source)."""
    named = [(case, line) for case in load_cases() if case["stock"]["exit"] == 0
             for line in case["stock"]["stdout"].splitlines() if line.startswith("runid")]
    assert len(named) == 500
    assert all(line.split("\t")[2] == case["run"].splitlines()[-1].split()[5]
               for case, line in named)
    assert sum(len({l.split()[5] for l in case["run"].splitlines()}) > 1
               for case, _ in named) >= 20  # cases where first and last differ


@pytest.mark.parametrize("shape", SHAPES)
def test_runid_is_the_last_lines_tag(tmp_path, shape):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS)
    run.write_bytes(SHAPES[shape](RUN).encode())
    result = cli("evaluate", qrels, run, "-f", "trec")
    assert result.exit_code == 0, result.stderr
    assert runid(result.stdout) == "last"


@pytest.mark.parametrize("source", ["gzip", "stdin", "csv"])
def test_runid_from_gzip_stdin_and_tables(tmp_path, source):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS)
    if source == "gzip":
        run.write_bytes(gzip.compress(RUN.encode()))
    elif source == "csv":
        run = tmp_path / "run.csv"
        run.write_text("query_id,doc_id,score,tag\n" + "".join(
            f"{q},{d},{s},{t}\n" for q, _, d, _, s, t in (l.split() for l in RUN.splitlines())))
    result = cli("evaluate", qrels, "-" if source == "stdin" else run, "-f", "trec",
                 input=RUN if source == "stdin" else None)
    assert result.exit_code == 0, result.stderr
    assert runid(result.stdout) == "last"


@pytest.mark.parametrize("block_bytes", [5, 30, 1 << 20])
def test_streaming_keeps_the_last_lines_tag(tmp_path, block_bytes):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS)
    run.write_text(RUN + "# trailing comment\n")
    results = evaluate_streaming(read_qrels(qrels), run, resolve_measures(["P@5"]), Settings(),
                                 block_bytes=block_bytes)
    assert results.run_tag == "last"


@pytest.mark.parametrize("compat,reciprocal_rank", [("9", "0.5000"), ("10", "1.0000")])
def test_a_score_beyond_32_bits_is_inf_under_9_quietly(tmp_path, compat, reciprocal_rank):
    """9.0.8 holds scores as C floats: 2e39 and 1e39 both become inf and tie, so the doc id
    rule (descending) puts b first and the relevant a second (RR 1/2); 10.0's doubles keep
    a first (RR 1). No overflow warning may reach stderr (trec_eval prints none)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\n")
    run.write_text("q1 Q0 a 1 2e39 r\nq1 Q0 b 2 1e39 r\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = cli("evaluate", qrels, run, "-m", "recip_rank", "-f", "trec", "--compat", compat)
    assert (result.exit_code, result.stderr, [str(w.message) for w in caught]) == (0, "", [])
    assert result.stdout == f"recip_rank            \tall\t{reciprocal_rank}\n"


# trec_eval marks a measure once and takes its parameters from the first `-m name.params`
# naming it (meas_init.c stops at the first match; a bare -m or a nickname only marks it):
# `-m P.5 -m P.10` prints P_5 alone. Here 1 relevant document of 2 is retrieved at rank 1:
# P_5 = 1/5, P_10 = 1/10, ndcg_cut_1 = 1, Rprec = 1/2.
FAMILY_TWICE = [
    (["P.5", "P.10"], ["P_5\tall\t0.2000"]),
    (["P", "P.5"], ["P_5\tall\t0.2000"]),
    (["P.10", "P"], ["P_10\tall\t0.1000"]),
    (["P.5", "Rprec", "P.10,5"], ["Rprec\tall\t0.5000", "P_5\tall\t0.2000"]),  # its order
    (["official", "P.10"], ["P_10\tall\t0.1000"]),
    (["ndcg_cut.1", "ndcg_cut.5,10"], ["ndcg_cut_1\tall\t1.0000"]),
]


@pytest.mark.parametrize("measures,lines", FAMILY_TWICE,
                         ids=[" ".join(m) for m, _ in FAMILY_TWICE])
def test_a_family_asked_twice_prints_its_first_parameters(tmp_path, measures, lines):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 1\n")
    run.write_text("q1 Q0 a 1 1 r\nq1 Q0 c 2 0.5 r\n")
    arguments = [a for m in measures for a in ("-m", m)]
    result = cli("evaluate", qrels, run, *arguments, "-f", "trec")
    assert result.exit_code == 0, result.stderr
    families = {line.split("\t")[0].split("_")[0] for line in lines}
    printed = [line.replace(" ", "") for line in result.stdout.splitlines()
               if line.split("\t")[0].strip().split("_")[0] in families]
    assert printed == lines
    assert "trec_eval prints" in result.stderr and "left out of --format trec" in result.stderr


def test_other_formats_show_both_and_say_why(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 1\n")
    run.write_text("q1 Q0 a 1 1 r\nq1 Q0 c 2 0.5 r\n")
    result = cli("evaluate", qrels, run, "-m", "P.5", "-m", "P.10", "-f", "csv")
    assert result.stdout.splitlines()[-2:] == ["run,all,P@5,0.2", "run,all,P@10,0.1"]
    assert result.stderr == ("searcheval: note: trec_eval prints P with the parameters of its "
                             "first -m (P.5) only: P@10 not in its output (--format trec leaves "
                             "them out)\n"
                             "searcheval: note: settings: 1 query averaged (missing=zero, as "
                             "trec_eval -c: every qrels query); ties: trec_eval; relevance "
                             "level: 1\n")  # csv's settings (its numbers are trec_eval -c's)
    ir_spelling = cli("evaluate", qrels, run, "-m", "P.5", "-m", "P@10", "-f", "trec")
    assert [line.split()[0] for line in ir_spelling.stdout.splitlines()] == ["P_5", "P_10"]
    assert ir_spelling.stderr == ""  # P@10 is no trec_eval argument: nothing to leave out


def test_compare_in_trec_format_prints_the_first_parameters_too(tmp_path):
    """compare -f trec is trec_eval's output for each run: -m P.5 -m P.10 prints P_5 alone.
    By hand: run a finds one relevant document in each query, P_5 = (1/5 + 1/5) / 2 = 0.2;
    run b finds two in q1 and one in q2, P_5 = (2/5 + 1/5) / 2 = 0.3."""
    qrels, run_a, run_b = tmp_path / "qrels", tmp_path / "a", tmp_path / "b"
    qrels.write_text("q1 0 a 1\nq1 0 b 1\nq2 0 x 1\n")
    run_a.write_text("q1 Q0 a 1 1 r\nq1 Q0 c 2 0.5 r\nq2 Q0 x 1 1 r\n")
    run_b.write_text("q1 Q0 a 1 1 r\nq1 Q0 b 2 0.5 r\nq2 Q0 x 1 1 r\n")
    result = cli("compare", qrels, run_a, run_b, "-m", "P.5", "-m", "P.10", "-f", "trec")
    assert result.exit_code == 0, result.stderr
    assert [line.replace(" ", "") for line in result.stdout.splitlines()] == [
        "run\tall\ta", "P_5\tall\t0.2000", "run\tall\tb", "P_5\tall\t0.3000"]
    assert "trec_eval prints P with the parameters of its first -m (P.5) only" in result.stderr


def _run_grouped(text: str) -> bool:
    """Whether each query's lines are together (the streaming reader needs it)."""
    queries = [line.split()[0] for line in text.split("\n") if len(line.split()) >= 6]
    starts = [q for i, q in enumerate(queries) if i == 0 or q != queries[i - 1]]
    return len(starts) == len(set(starts))


def stopped_cases() -> list:
    """Stored cases where 10.0 exits 4 or 9.0.8 exits 7 with -c, runs grouped by query."""
    return [pytest.param(case, id=case["id"]) for case in load_cases()
            if (case["version"], case["stock"]["exit"]) in (("10", 4), ("9", 7))
            and (case["version"] == "10" or "-c" in case["flags"]) and _run_grouped(case["run"])]


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
@pytest.mark.parametrize("case", stopped_cases())
def test_batch_says_where_trec_eval_stops(tmp_path, case, stream):
    """The note evaluate gives (test_trec_eval_binary) is in batch's results too, streamed
    or not: what the binary printed when it stopped. Where 9.0.8 stops (no query in both
    files) batch fails the run, as evaluate refuses it, unless --allow-empty."""
    qrels, run, out = tmp_path / "qrels", tmp_path / "run", tmp_path / "out"
    qrels.write_text(case["qrels"])
    run.write_text(case["run"])
    flags = [flag for flag in case["flags"] if flag not in ("-q", "-c")]
    missing = "zero" if "-c" in case["flags"] else "skip"
    arguments = ["batch", qrels, run, "-o", out, stream, "--compat", case["version"],
                 "--missing", missing, *flags, "-m", "P.5"]
    if case["version"] == "9":
        refused = cli(*arguments)
        assert refused.exit_code == 1
        assert f"searcheval: no query is in both {qrels} and {run} " in refused.stderr
        arguments.append("--allow-empty")
    result = cli(*arguments)
    assert result.exit_code == 0, result.stderr
    notes = json.loads((out / "runs" / "run.json").read_text())["notes"]
    said = case["stock"]["stderr"].removeprefix("trec_eval: ")
    assert any(f"trec_eval {'10.0' if case['version'] == '10' else '9.0.8'} stops here with "
               f"exit {case['stock']['exit']} (\"{said}\")" in note for note in notes), notes


# 11pt_avg averages its points in the order given (meas_init.c's get_float_params does not
# sort them, and m_11pt_avg.c meets each point once on one climb up the ranking). Three
# queries: q1 R = 5 (f non-relevant at rank 1; a, b, c, d at ranks 2, 4, 5, 7; e not
# retrieved), q2 R = 3 (b, a, c at ranks 1, 3, 4), q3 R = 2 (a at rank 2, b not retrieved).
# Expected: what `trec_eval -q -m 11pt_avg.POINTS qrels run` printed at tags v9.0.8 and
# v10.0 (per query q1, q2, q3, then all); they differ where (long)(x*R + 0.9) and
# lround(x*R) differ (0.9 * 3, 0.4 * 3).
POINTS_QRELS = ("q1 0 a 1\nq1 0 b 1\nq1 0 c 1\nq1 0 d 1\nq1 0 e 1\nq1 0 f 0\n"
                "q2 0 a 1\nq2 0 b 2\nq2 0 c 1\nq3 0 a 1\nq3 0 b 1\n")
POINTS_RUN = "".join(f"{q} Q0 {d} {i} {s} t\n" for i, (q, d, s) in enumerate(
    [("q1", "f", 9), ("q1", "a", 8), ("q1", "x", 7), ("q1", "b", 6), ("q1", "c", 5),
     ("q1", "y", 4), ("q1", "d", 3), ("q1", "z", 2), ("q2", "b", 5), ("q2", "x", 4),
     ("q2", "a", 3), ("q2", "c", 2), ("q3", "x", 2), ("q3", "a", 1)], 1))
POINTS_TREC_EVAL = [
    ("9", "1,0.5,0.2", "0.6000 1.0000 0.5000 0.7000"),
    ("9", "0.5,0,0.8", "0.5905 0.9167 0.3333 0.6135"),
    ("9", "0.2,0.9,0.4", "0.6000 0.9167 0.5000 0.6722"),
    ("9", "0.2,0.5,1", "0.4000 0.8333 0.3333 0.5222"),
    ("10", "1,0.5,0.2", "0.6000 1.0000 0.5000 0.7000"),
    ("10", "0.5,0,0.8", "0.5905 0.9167 0.3333 0.6135"),
    ("10", "0.2,0.9,0.4", "0.6000 1.0000 0.5000 0.7000"),
    ("10", "0.2,0.5,1", "0.4000 0.8333 0.3333 0.5222"),
]


@pytest.mark.parametrize("compat,points,values", POINTS_TREC_EVAL,
                         ids=[f"{c}-{p}" for c, p, _ in POINTS_TREC_EVAL])
def test_11pt_avg_takes_its_points_in_the_order_given(tmp_path, compat, points, values):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(POINTS_QRELS)
    run.write_text(POINTS_RUN)
    result = cli("evaluate", qrels, run, "-m", f"11pt_avg.{points}", "-q", "-f", "trec",
                 "--missing", "skip", "--compat", compat)
    assert result.exit_code == 0, result.stderr
    name = f"11pt_avg_{points}".ljust(22)
    assert result.stdout == "".join(f"{name}\t{q}\t{v}\n" for q, v in
                                    zip(["q1", "q2", "q3", "all"], values.split()))
