"""A query whose id is `all`, the id trec_eval gives its mean lines.

trec_eval prints the query and the mean both as `all` (m_*.c print the mean with the query
id "all"; a query of that id is printed as any other): `--format trec` keeps that, byte for
byte. The formats where the mean row is named `all` beside the queries (csv, wide-csv, the
tables with -q) refuse such a query instead of printing two rows no reader could tell
apart; JSON keeps the means apart (``summary``), and a table without -q shows no query.

By hand (qrels `all 0 d1 1`, `q1 0 d1 1`; the run ranks d1 first for `all`, second for
q1): AP of `all` = 1/1 = 1, AP of q1 = 1/2 = 0.5, mean (1 + 0.5) / 2 = 0.75.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import searcheval
from searcheval.errors import UsageError
from cli_runner import cli

QRELS = "all 0 d1 1\nq1 0 d1 1\n"
RUN = "all Q0 d1 1 2.0 t\nall Q0 d2 2 1.0 t\nq1 Q0 d2 1 2.0 t\nq1 Q0 d1 2 1.0 t\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.qrels").write_text(QRELS)
    (tmp_path / "r.run").write_text(RUN)
    return tmp_path / "q.qrels", tmp_path / "r.run"


def evaluate(files, *args):
    return cli("evaluate", *files, "-m", "map", *args)


def test_trec_format_prints_what_trec_eval_prints(files):
    # trec_eval's order: queries by strcmp ("all" < "q1"), then the means, also "all"
    result = evaluate(files, "-q", "-f", "trec")
    assert (result.exit_code, result.stdout) == (0, "map                   \tall\t1.0000\n"
                                                    "map                   \tq1\t0.5000\n"
                                                    "map                   \tall\t0.7500\n")


@pytest.mark.parametrize("args,fmt", [(["-f", "csv"], "csv"), (["-f", "wide-csv"], "wide-csv"),
                                      (["-q"], "table"), (["-q", "-f", "markdown"], "markdown"),
                                      (["-q", "-f", "latex"], "latex")])
def test_error_formats_naming_the_mean_all_refuse_the_query(files, args, fmt, tmp_path):
    # wide-csv used to write the mean (0.75) in the query's row, whose AP is 1
    result = evaluate(files, *args, "-o", str(tmp_path / "out"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"r.run: a query has the id 'all', which --format {fmt} also gives the mean row, so "
        "the two could not be told apart: use --format json (means under \"summary\") or "
        "trec (trec_eval's own text, as ambiguous as trec_eval), or rename the query\n")
    assert not (tmp_path / "out").exists()


def test_json_and_the_means_table_keep_them_apart(files):
    document = json.loads(evaluate(files, "-f", "json", "-q").stdout)
    assert document["per_query"] == {"all": {"AP": 1.0}, "q1": {"AP": 0.5}}
    assert document["summary"] == {"AP": 0.75}
    table = evaluate(files).stdout.splitlines()
    assert table[:2] == ["measure     all", "AP       0.7500"]  # no query column beside it


def test_api_values_and_the_long_table(files):
    results = searcheval.evaluate(*files, ["AP"])
    assert results.value("AP", "all") == 1.0 and results.summary() == {"AP": 0.75}
    with pytest.raises(UsageError, match="a query has the id 'all'"):
        results.to_dataframe(means=True)
    # without the mean rows (the default) the query's own row stands alone
    assert results.to_dataframe()[["query_id", "value"]].values.tolist() == [["all", 1.0],
                                                                             ["q1", 0.5]]
    with pytest.raises(UsageError, match="a query has the id 'all'"):
        results.to_markdown(per_query=True)  # its row beside the mean row, as -q -f markdown
    assert "| AP | 0.7500 |" in results.to_markdown()  # the means alone: no ambiguity


def test_error_the_export_script_refuses_the_query(files, tmp_path, capsys):
    # it put the mean in the query's row (a dict keyed by query id, then "all")
    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("export_per_query",
                                                  root / "scripts" / "export_per_query.py")
    export = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(export)
    runs = tmp_path / "runs"
    runs.mkdir()
    files[1].rename(runs / "r.run")
    assert export.main([str(files[0]), str(runs), "-o", str(tmp_path / "out"), "-m", "AP"]) == 2
    assert capsys.readouterr().err == ("r.run: a query has the id 'all', the name of the mean "
                                       "rows of these tables, so the two could not be told "
                                       "apart: rename the query\n")
    assert not (tmp_path / "out").exists()


# A second run ranking d2 first for `all` and d1 first for q1: AP of `all` = 1/2, of q1 = 1.
OTHER_RUN = "all Q0 d2 1 2.0 t\nall Q0 d1 2 1.0 t\nq1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n"


def test_plots_draw_the_query_named_all_as_a_query(files, tmp_path):
    # --plot: every figure takes `all` as the query it is, never as the mean. By hand: the
    # difference of AP (other - r) is 1/2 - 1 = -0.5 for `all` and 1 - 1/2 = +0.5 for q1
    # (were `all` the mean, 0.75 - 0.75 = 0); each distribution holds both queries' values;
    # the precision-recall curve of r is (1 + 1/2) / 2 = 0.75 at every recall level (the
    # relevant document at rank 1 for `all`, rank 2 for q1: iprec 1 and 1/2 throughout)
    from searcheval.report import plots
    from searcheval.settings import Settings

    other = tmp_path / "other.run"
    other.write_text(OTHER_RUN)
    comparison = searcheval.compare(files[0], [files[1], other], ["AP"])
    runs = {"r.run": searcheval.read_run(files[1]), "other.run": searcheval.read_run(other)}
    curves = plots.iprec_curves(searcheval.read_qrels(files[0]), runs, Settings())
    assert curves["r.run"] == pytest.approx([0.75] * 11)
    figures = plots.comparison_figures(comparison, curves)
    bars = figures["difference-AP-other.run-vs-r.run"].axes[0]
    assert [patch.get_height() for patch in bars.patches] == pytest.approx([0.5, -0.5])
    assert [tick.get_text() for tick in bars.get_xticklabels()] == ["q1", "all"]
    dots = figures["distribution-AP"].axes[0].collections  # per run: its queries, its mean
    assert sorted(dots[0].get_offsets()[:, 1].tolist()) == [0.5, 1.0]
    assert dots[1].get_offsets()[:, 1].tolist() == [0.75]
