"""Runs that share a file name (exp1/run.txt, exp2/run.txt) keep their own numbers in every
output: evaluate's formats and plots, compare's, batch's files, and the Python API.

References: pytrec_eval (trec_eval 9.0.8's C code) on the same files for full-precision
values, and the stored trec_eval output of each run (fixtures/cranfield-runs/metrics) for
the four-decimal ones. The two runs differ in both measures (AP 0.4071 / 0.4051, P@10
0.3044 / 0.3049), so a view that shows one run's number in the other's place fails.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest
import pytrec_eval
from click.testing import CliRunner

from cli_runner import cli
import searcheval
from searcheval.cli import main
from searcheval.errors import UsageError
from searcheval.report.render import render_results
from searcheval.io.run_labels import path_labels

CRANFIELD = Path(__file__).resolve().parent.parent / "fixtures" / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
SOURCES = {"exp1/run.txt": "results_english_classic.txt", "exp2/run.txt": "results_english_bm25.txt"}
LABELS = list(SOURCES)
TREC_NAMES = {"AP": "map", "P@10": "P_10"}


def read_trec(path: Path) -> dict[str, dict]:
    table: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        query_id, *fields = line.split()
        if len(fields) == 3:  # qrels: 0 doc grade
            table.setdefault(query_id, {})[fields[1]] = int(fields[2])
        else:  # run: Q0 doc rank score tag
            table.setdefault(query_id, {})[fields[1]] = float(fields[3])
    return table


def pytrec_means(run_file: str) -> dict[str, float]:
    """AP and P@10 by pytrec_eval, averaged over the qrels queries (all in these runs)."""
    qrels = read_trec(QRELS)
    values = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.10"}).evaluate(
        read_trec(CRANFIELD / "results" / run_file))
    assert set(values) == set(qrels)
    return {"AP": sum(v["map"] for v in values.values()) / len(values),
            "P@10": sum(v["P_10"] for v in values.values()) / len(values)}


def trec_eval_text(run_file: str) -> dict[str, str]:
    """What trec_eval printed for AP and P@10 (four decimals)."""
    metrics = (CRANFIELD / "metrics" / run_file.replace("results_", "metrics_")).read_text()
    printed = {line.split()[0]: line.split()[2] for line in metrics.splitlines()}
    return {name: printed[trec] for name, trec in TREC_NAMES.items()}


EXPECTED = {label: pytrec_means(source) for label, source in SOURCES.items()}
PRINTED = {label: trec_eval_text(source) for label, source in SOURCES.items()}


@pytest.fixture
def runs(tmp_path) -> list[Path]:
    paths = []
    for label, source in SOURCES.items():
        (tmp_path / label).parent.mkdir()
        shutil.copyfile(CRANFIELD / "results" / source, tmp_path / label)
        paths.append(tmp_path / label)
    return paths



def evaluate_output(runs, fmt: str, *extra) -> str:
    result = cli("evaluate", QRELS, *runs, "-m", "AP", "-m", "P@10", "-f", fmt, *extra)
    assert result.exit_code == 0, result.output
    return result.stdout


def assert_close(view: dict[str, dict[str, float]]) -> None:
    """Each run's means are pytrec_eval's, to 1e-12."""
    assert list(view) == LABELS
    for label in LABELS:
        assert view[label] == pytest.approx(EXPECTED[label], abs=1e-12)


def four(value: str | float) -> str:
    return f"{float(value):.4f}"


def test_each_run_alone_gives_the_reference_values(runs):
    for path, label in zip(runs, LABELS):
        alone = searcheval.evaluate(QRELS, path, ["AP", "P@10"]).summary()
        assert alone == pytest.approx(EXPECTED[label], abs=1e-12)
        assert {m: four(v) for m, v in alone.items()} == PRINTED[label]


# ---- evaluate: every format, read back --------------------------------------------------------

def grid_values(lines: list[str], split, clean) -> dict[str, dict[str, str]]:
    """{label: {measure: text}} from a grid of runs as rows, measures as columns."""
    rows = [split(line) for line in lines]
    header = rows[0][1:]
    return {row[0]: {m: clean(cell) for m, cell in zip(header, row[1:]) if m in TREC_NAMES}
            for row in rows[1:]}


def first_grid(text: str, starts: str) -> list[str]:
    """The lines of the first grid (the means; compare's changes come after a blank line)."""
    block = next(b for b in text.split("\n\n") if starts in b)
    return block.splitlines()


def from_markdown(text: str) -> dict[str, dict[str, str]]:
    lines = [line for line in first_grid(text, "| ") if line.startswith("| ")]
    return grid_values([lines[0]] + lines[2:], lambda line: [c.strip() for c in
                                                             line.strip("| ").split(" | ")],
                       lambda cell: cell.strip("*"))


def from_latex(text: str) -> dict[str, dict[str, str]]:
    lines = [line for line in first_grid(text, r"\toprule") if line.endswith(r"\\")]
    return grid_values(lines, lambda line: [c.strip() for c in line[:-2].split("&")],
                       lambda cell: re.sub(r"\\textbf\{(.*)\}", r"\1", cell))


def from_table(text: str) -> dict[str, dict[str, str]]:
    """The side-by-side text table: runs as rows, columns apart by two spaces or more."""
    lines = text.split("\n\n")[0].splitlines()
    return grid_values(lines, lambda line: re.split(r"\s{2,}", line.strip()), str.strip)


def from_trec(text: str) -> dict[str, dict[str, str]]:
    """trec_eval's text has no run names: with several runs each block starts with a
    `run  all  LABEL` line."""
    blocks: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        name, _, value = line.split()
        if name == "run":
            label = value
            blocks[label] = {}
        else:
            blocks[label][{v: k for k, v in TREC_NAMES.items()}[name]] = value
    return blocks


@pytest.mark.parametrize("fmt,read", [("markdown", from_markdown), ("latex", from_latex),
                                      ("table", from_table)])
def test_evaluate_text_views_show_each_runs_own_value(runs, fmt, read):
    assert read(evaluate_output(runs, fmt)) == PRINTED


def test_evaluate_trec_view_shows_each_runs_own_value(runs):
    assert from_trec(evaluate_output(runs, "trec")) == {label: PRINTED[label] for label in LABELS}


def test_evaluate_csv_json_views_show_each_runs_own_value(runs):
    rows = csv.DictReader(io.StringIO(evaluate_output(runs, "csv")))
    long = {}
    for row in rows:
        if row["query_id"] == "all":
            long.setdefault(row["run"], {})[row["measure"]] = float(row["value"])
    wide = {row["run"]: {m: float(row[m]) for m in TREC_NAMES}
            for row in csv.DictReader(io.StringIO(evaluate_output(runs, "wide-csv")))
            if row["query_id"] == "all"}
    documents = json.loads(evaluate_output(runs, "json"))
    from_json = {doc["run"]: doc["summary"] for doc in documents}
    for view in (long, wide, from_json):
        assert_close(view)


def test_evaluate_plots_draw_one_curve_and_one_box_per_run(runs, tmp_path):
    evaluate_output(runs, "csv", "--plot", tmp_path / "plots")
    for figure in ("pr-curves.svg", "distribution-AP.svg"):
        svg = (tmp_path / "plots" / figure).read_text()
        for label in LABELS:  # the legend (curves) or the axis (boxes) names each run
            assert svg.count(f">{label}<") == 1, (figure, label)


def test_plot_curves_are_each_runs_own(runs):
    from searcheval.settings import Settings
    from searcheval.report.plots import iprec_curves
    read = [searcheval.read_run(path) for path in runs]
    curves = iprec_curves(searcheval.read_qrels(QRELS), dict(zip(LABELS, read)), Settings())
    for label, source in SOURCES.items():
        metrics = (CRANFIELD / "metrics" / source.replace("results_", "metrics_")).read_text()
        printed = [line.split()[2] for line in metrics.splitlines()
                   if line.startswith("iprec_at_recall_")]
        assert [four(v) for v in curves[label]] == printed


# ---- compare --------------------------------------------------------------------------------

def compare_output(runs, fmt: str, *extra) -> str:
    result = cli("compare", QRELS, *runs, "-m", "AP", "-m", "P@10", "-f", fmt, *extra)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_compare_csv_pairs_the_right_means(runs):
    rows = list(csv.DictReader(io.StringIO(compare_output(runs, "csv"))))
    assert [(r["measure"], r["run"], r["baseline"]) for r in rows] == [
        ("AP", "exp2/run.txt", "exp1/run.txt"), ("P@10", "exp2/run.txt", "exp1/run.txt")]
    for row in rows:
        assert float(row["run_mean"]) == pytest.approx(EXPECTED[row["run"]][row["measure"]],
                                                       abs=1e-12)
        assert float(row["baseline_mean"]) == pytest.approx(
            EXPECTED[row["baseline"]][row["measure"]], abs=1e-12)


def test_compare_json_and_wide_csv_name_each_run(runs):
    document = json.loads(compare_output(runs, "json"))
    assert [r["run"] for r in document["runs"]] == LABELS
    for entry in document["runs"]:
        assert entry["summary"] == pytest.approx(EXPECTED[entry["run"]], abs=1e-12)
    assert sorted(document["per_query"]) == LABELS
    wide = {row["run"]: {m: float(row[m]) for m in TREC_NAMES}
            for row in csv.DictReader(io.StringIO(compare_output(runs, "wide-csv")))
            if row["query_id"] == "all"}
    assert_close(wide)


@pytest.mark.parametrize("fmt,read", [("markdown", from_markdown), ("latex", from_latex)])
def test_compare_text_views_show_each_runs_own_mean(runs, fmt, read):
    # Without a baseline the runs are lettered: "exp1/run.txt (a)".
    shown = {label.rsplit(" (", 1)[0]: values for label, values in
             read(compare_output(runs, fmt)).items()}
    assert shown == PRINTED


def test_compare_table_and_trec_views(runs):
    table = compare_output(runs, "table")
    header, *rows = table.split("\n\n")[0].splitlines()
    assert header.split() == ["run", *TREC_NAMES]
    assert {" ".join(row.split()[:2]): row.split()[2:] for row in rows} == {
        f"{label} ({letter})": [PRINTED[label][m] for m in TREC_NAMES]
        for label, letter in zip(LABELS, "ab")}
    assert from_trec(compare_output(runs, "trec")) == {label: PRINTED[label] for label in LABELS}


def test_compare_baseline_by_label_and_plots(runs, tmp_path):
    text = compare_output(runs, "csv", "--baseline", "exp2/run.txt", "--plot", tmp_path / "p",
                          "--plot-measures", "all")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {(r["run"], r["baseline"]) for r in rows} == {("exp1/run.txt", "exp2/run.txt")}
    assert float(rows[0]["run_mean"]) == pytest.approx(EXPECTED["exp1/run.txt"]["AP"], abs=1e-12)
    assert sorted(p.name for p in (tmp_path / "p").glob("difference-*.svg")) == [
        "difference-AP-exp1_run.txt-vs-exp2_run.txt.svg",
        "difference-P@10-exp1_run.txt-vs-exp2_run.txt.svg"]
    svg = (tmp_path / "p" / "pr-curves.svg").read_text()
    assert all(svg.count(f">{label}<") == 1 for label in LABELS)


def test_compare_baseline_by_another_spelling_of_its_path(runs):
    same = runs[1].parent / ".." / "exp2" / "run.txt"
    rows = list(csv.DictReader(io.StringIO(compare_output(runs, "csv", "--baseline", same))))
    assert {(r["run"], r["baseline"]) for r in rows} == {("exp1/run.txt", "exp2/run.txt")}


def test_compare_baseline_by_a_shared_file_name_is_refused(runs):
    result = cli("compare", QRELS, *runs, "--baseline", "run.txt")
    assert (result.exit_code, result.stderr) == (
        2, "baseline run.txt: 2 runs have that file name (exp1/run.txt, exp2/run.txt): name one "
           "by its label\n")


# ---- batch ----------------------------------------------------------------------------------

def test_batch_writes_each_run_under_its_own_label(runs, tmp_path):
    out = tmp_path / "out"
    result = cli("batch", QRELS, *runs, "-o", out, "-m", "AP", "-m", "P@10")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(
        f"{stem}.{ext}" for stem in ("exp1%2Frun.txt", "exp2%2Frun.txt")
        for ext in ("csv", "json", "done"))
    board = {row["run"]: {m: float(row[m]) for m in TREC_NAMES}
             for row in csv.DictReader(io.StringIO((out / "summary.csv").read_text()))}
    assert_close(board)
    for label in LABELS:
        stem = label.replace("/", "%2F")
        rows = [row for row in csv.DictReader(io.StringIO((out / "runs" / f"{stem}.csv")
                                                          .read_text()))
                if row["query_id"] == "all"]
        assert {row["run"] for row in rows} == {label}
        assert {row["measure"]: float(row["value"]) for row in rows} == pytest.approx(
            EXPECTED[label], abs=1e-12)
        document = json.loads((out / "runs" / f"{stem}.json").read_text())
        assert document["run"] == label
        assert document["summary"] == pytest.approx(EXPECTED[label], abs=1e-12)
    again = cli("batch", QRELS, *runs, "-o", out, "-m", "AP", "-m", "P@10", "-j", "2")
    assert "2 runs: 0 evaluated, 2 up to date, 0 failed" in again.stderr
    for option in (["--stream"], ["-j", "2"]):  # streamed, and in worker processes: same files
        other = tmp_path / option[0].strip("-")
        assert cli("batch", QRELS, *runs, "-o", other, "-m", "AP", "-m", "P@10",
                   *option).exit_code == 0
        assert {p.name: p.read_bytes() for p in (other / "runs").iterdir()} == {
            p.name: p.read_bytes() for p in (out / "runs").iterdir()}


def test_batch_evaluates_a_file_met_twice_once(runs, tmp_path):
    same = runs[0].parent / ".." / "exp1" / "run.txt"
    result = cli("batch", QRELS, runs[0], same, runs[0].parent, "-o", tmp_path / "out", "-m", "AP")
    assert result.exit_code == 0, result.output
    assert "1 run: 1 evaluated" in result.stderr
    assert (tmp_path / "out" / "summary.csv").read_text().splitlines()[1].startswith("run.txt,")


# ---- the same run twice ---------------------------------------------------------------------

@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_the_same_run_twice_is_refused(runs, tmp_path, command):
    same = runs[0].parent / ".." / "exp1" / "run.txt"
    result = cli(command, QRELS, runs[0], same, "-o", tmp_path / "out.txt")
    assert (result.exit_code, result.stderr) == (
        2, f"the run {same} is given twice (runs 1 and 2): give each run once\n")
    assert not (tmp_path / "out.txt").exists()


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_the_same_run_through_a_symlink_is_refused(runs, tmp_path, command):
    # A link is one more spelling of the file: its two columns would read as two systems.
    link = tmp_path / "link.run"
    link.symlink_to(runs[0])
    result = cli(command, QRELS, runs[0], link, "-o", tmp_path / "out.txt")
    assert (result.exit_code, result.stderr) == (
        2, f"the run {link} is given twice (runs 1 and 2): give each run once\n")
    assert not (tmp_path / "out.txt").exists()


# ---- the Python API -------------------------------------------------------------------------

def test_api_compare_labels_runs_of_one_file_name(runs):
    comparison = searcheval.compare(QRELS, [searcheval.read_run(p) for p in runs], ["AP"])
    assert comparison.runs == LABELS
    assert [comparison.mean("AP", label) for label in LABELS] == pytest.approx(
        [EXPECTED[label]["AP"] for label in LABELS], abs=1e-12)
    by_path = searcheval.compare(QRELS, [str(p) for p in runs], ["AP"], baseline="exp2/run.txt")
    assert by_path.baseline == "exp2/run.txt" and by_path.runs == LABELS
    with pytest.raises(UsageError, match="given twice"):
        searcheval.compare(QRELS, [str(runs[0]), str(runs[0])], ["AP"])


def test_renderers_refuse_two_results_under_one_label(runs):
    first, second = (searcheval.evaluate(QRELS, path, ["AP"]) for path in runs)
    assert first.run == second.run == "run.txt"  # each evaluated alone: its file name
    for fmt in ("table", "csv", "wide-csv", "json", "markdown", "latex", "trec"):
        with pytest.raises(UsageError, match="both labelled 'run.txt'"):
            render_results([first, second], fmt)


@pytest.mark.parametrize("paths,labels", [
    (["exp1/run.txt", "exp2/run.txt", "other.run"], ["exp1/run.txt", "exp2/run.txt", "other.run"]),
    (["a/x/run.txt", "b/x/run.txt", "c/run.txt"], ["a/x/run.txt", "b/x/run.txt", "c/run.txt"]),
    (["top/run.txt", "top/sub/run.txt"], ["top/run.txt", "sub/run.txt"]),
])
def test_labels_are_the_shortest_distinguishing_suffixes(paths, labels):
    assert path_labels(paths) == labels


def test_a_label_never_climbs_out_of_the_folder():
    inside, above = path_labels(["run.txt", "../run.txt"])
    here, parent = Path.cwd().parts[-1], Path.cwd().parts[-2]
    assert (inside, above) == (f"{here}/run.txt", f"{parent}/run.txt")


def test_pool_names_runs_of_one_file_name_by_label(runs):
    from searcheval.build.pool import pool
    read = [searcheval.read_run(p) for p in runs]
    pooled = pool(read, depth=1)
    assert pooled.runs == LABELS
    # Each run's first document of query 1, by trec_eval's order (score, then doc id, desc).
    for label, run in zip(LABELS, runs):
        lines = [line.split() for line in run.read_text().splitlines() if line.split()[0] == "1"]
        top = max(lines, key=lambda f: (float(f[4]), f[2]))[2]
        entry = next(e for e in pooled.entries if (e.query_id, e.doc_id) == ("1", top))
        assert entry.ranks[label] == 1


def test_plots_refuse_two_figures_under_one_file_name(runs, tmp_path):
    # exp1/run.txt and exp1_run.txt both become exp1_run.txt in a file name: the figures of
    # exp2/run.txt against each would be one file.
    third = tmp_path / "exp1_run.txt"
    shutil.copyfile(runs[0], third)
    result = cli("compare", QRELS, runs[0], third, runs[1], "-m", "AP", "--baseline", runs[1],
                 "--plot", tmp_path / "plots", "-o", tmp_path / "out.csv")
    assert (result.exit_code, result.stderr) == (
        2, "--plot: two figures would both be written as difference-AP-exp1_run.txt-vs-"
           "exp2_run.txt.png (run or measure names that differ only in characters a file name "
           "cannot hold); rename a run file\n")
    assert not (tmp_path / "plots").exists() and not (tmp_path / "out.csv").exists()


def test_best_marks_only_measures_that_grade_the_ranking(runs):
    # FirstRel is a rank (lower is better) and NumRet a count: neither has a "best" run.
    text = evaluate_output(runs, "markdown", "-m", "FirstRel", "-m", "NumRet")
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    assert lines[0] == "| run | AP | P@10 | FirstRel | NumRet |"
    rows = {line.split(" | ")[0].strip("| "): line.strip("| ").split(" | ") for line in lines[2:]}
    # columns: run, AP, P@10, FirstRel, NumRet
    assert all("**" not in rows[label][3] + rows[label][4] for label in LABELS)
    assert [rows[label][1] for label in LABELS] == [f"**{PRINTED['exp1/run.txt']['AP']}**",
                                                    PRINTED["exp2/run.txt"]["AP"]]


def shortest_unique_suffix(own: tuple[str, ...], others: list[tuple[str, ...]]) -> str:
    """The definition, by brute force: the fewest trailing components no other path ends
    with (all of them when every suffix is another path's end)."""
    for k in range(1, len(own) + 1):
        if all(other[-k:] != own[-k:] for other in others):
            return "/".join(own[-k:])
    return "/".join(own)


def test_labels_match_the_definition_on_random_trees():
    import random
    generator = random.Random(12)
    for _ in range(300):
        paths = sorted({"/" + "/".join(generator.choice("ab") for _ in range(generator.randint(0, 4)))
                        + "/run.txt" for _ in range(generator.randint(2, 8))})
        parts = [tuple(Path(p).parts[1:]) for p in paths]
        expected = [shortest_unique_suffix(p, [o for o in parts if o != p]) for p in parts]
        assert path_labels(paths) == expected, paths


def test_labels_of_many_runs_of_one_file_name_take_linear_time():
    # A sweep of 10,000 systems, each runs/sysN/run.txt: comparing every path with every
    # other took 21 s here; counting suffixes takes well under a second.
    import time
    paths = [f"/data/sweep/sys{i}/run.txt" for i in range(10_000)]
    started = time.perf_counter()
    labels = path_labels(paths)
    assert time.perf_counter() - started < 5
    assert labels == [f"sys{i}/run.txt" for i in range(10_000)]


def test_notes_on_stderr_name_their_run(runs):
    # -f csv has no place for notes, so each run's go to stderr: with two runs of one file
    # name each line must say whose it is. AP over the 225 queries and their mean: 226.
    result = cli("evaluate", QRELS, *runs, "-m", "AP", "-f", "csv", "--cross-check")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"searcheval: note: {label}: cross-check against pytrec_eval (trec_eval 9.0.8): 226 "
        "values compared, 0 differ (tolerance 1e-09)" for label in LABELS] + [
        f"searcheval: note: {label}: settings: 225 queries averaged (missing=zero, as "
        "trec_eval -c: every qrels query); ties: trec_eval; relevance level: 1"
        for label in LABELS]  # the settings once the output is made


def test_a_file_keeps_its_name_beside_a_stdin_run_tagged_so(runs):
    # A run on stdin is named by its tag; tagged run.txt beside the file exp1/run.txt, the
    # file took "run.txt#2" and the stdin run "run.txt", which reads as the file's; then
    # the file "exp1/run.txt" and stdin "run.txt" (an audit's finding 11): the row called
    # run.txt was not the file run.txt. The file's own name wins; stdin's says it is stdin.
    stdin = "1 Q0 184 1 1.0 run.txt\n"
    result = CliRunner().invoke(main, ["evaluate", str(QRELS), "-", str(runs[0]), "-m", "AP",
                                       "-f", "markdown"], input=stdin)
    assert result.exit_code == 0, result.output
    assert [line.split(" | ")[0] for line in result.stdout.splitlines()[2:4]] == [
        "| &lt;stdin:run.txt&gt;", "| run.txt"]  # markdown escapes < and >
