"""`searcheval report`: the HTML file's data, its safety and its refusals, without a
browser (tests/test_report_browser.py opens it in headless Chromium).

References: the values `evaluate -f json` prints (checked against trec_eval elsewhere);
confidence intervals from scipy.stats.t.interval; p-values from scipy.stats.ttest_rel
corrected by statsmodels' multipletests; rankings ordered from the run file's own lines
by trec_eval's rule (score descending, then doc id descending); grades from the qrels
file's own lines.
"""

from __future__ import annotations

import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from cli_runner import cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
QRELS = FIXTURES / "cranfield-runs" / "qrel"
RUNS = sorted((FIXTURES / "cranfield-runs" / "results").glob("*.txt"))
BASELINE = "results_english_bm25.txt"
MEASURES = ("AP", "nDCG@10", "P@10", "RR", "R@100", "GMAP", "NumRet")
ASSETS = Path(__file__).resolve().parent.parent / "searcheval" / "report" / "html_assets"
SVG_NAMESPACE = "http://www.w3.org/2000/svg"  # a name in createElementNS, not a resource


def blob(page: str) -> dict:
    """The JSON data of a report page."""
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                      page, re.S)
    return json.loads(found.group(1))


def write_report(out: Path, *arguments) -> str:
    result = cli("report", *arguments, "-o", out)
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def cranfield(tmp_path_factory) -> tuple[str, dict]:
    """The report of the 15 Cranfield runs, with texts (irds:cranfield, offline: conftest's
    IR_DATASETS_HOME) and a baseline; its page and data."""
    out = tmp_path_factory.mktemp("report") / "report.html"
    arguments = [QRELS, *RUNS, "--baseline", BASELINE, "--docs", "irds:cranfield",
                 "--queries", "irds:cranfield"]
    page = write_report(out, *arguments, *[f"-m{m}" for m in MEASURES])
    return page, blob(page)


@pytest.fixture(scope="module")
def evaluated() -> list[dict]:
    result = cli("evaluate", QRELS, *RUNS, "-f", "json", *[f"-m{m}" for m in MEASURES])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_leaderboard_means_are_evaluate_json_values(cranfield, evaluated):
    data = cranfield[1]
    assert [run["name"] for run in data["runs"]] == [doc["run"] for doc in evaluated]
    assert [m["name"] for m in data["measures"]] == list(MEASURES)
    for row, doc in zip(data["summary"], evaluated):
        assert dict(zip(MEASURES, row)) == doc["summary"]  # exactly: the same floats


def test_per_query_values_are_evaluate_json_values(cranfield, evaluated):
    data = cranfield[1]
    for r, doc in enumerate(evaluated):
        for m, name in enumerate(MEASURES):
            if name == "GMAP":  # no per-query values (trec_eval prints it for `all` only)
                assert data["per_query"][r][m] == []
                continue
            assert data["per_query"][r][m] == [doc["per_query"][q][name] for q in data["queries"]]


def test_intervals_are_scipy_t_intervals(cranfield, evaluated):
    """Means: scipy.stats.t.interval(0.95, n-1, mean, sem); GMAP's on log(max(AP, 1e-5)),
    transformed back; a sum (NumRet) has none."""
    data = cranfield[1]
    for r, doc in enumerate(evaluated):
        for m, name in enumerate(MEASURES):
            interval = data["intervals"][r][m]
            if name == "NumRet":
                assert interval is None
                continue
            source = "AP" if name == "GMAP" else name
            x = np.array([doc["per_query"][q][source] for q in data["queries"]], dtype=float)
            if name == "GMAP":
                x = np.log(np.maximum(x, 1e-5))
            low, high = stats.t.interval(0.95, len(x) - 1, loc=x.mean(),
                                         scale=x.std(ddof=1) / math.sqrt(len(x)))
            if name == "GMAP":
                low, high = math.exp(low), math.exp(high)
            assert interval == pytest.approx([low, high], rel=1e-12), (doc["run"], name)


def test_significance_is_scipy_paired_t_with_holm(cranfield, evaluated):
    from statsmodels.stats.multitest import multipletests
    data = cranfield[1]
    significance = data["significance"]
    base = [doc["run"] for doc in evaluated].index(BASELINE)
    assert significance["baseline"] == base
    assert "paired t-test" in significance["test_about"]
    assert "Holm" in significance["correction"]
    compared = [m for m in MEASURES if m not in ("GMAP",)]  # GMAP: nothing per query to pair
    expected, cells = [], []
    for r, doc in enumerate(evaluated):
        if r == base:
            assert all(cell is None for cell in significance["cells"][r])
            continue
        for name in compared:
            a = [evaluated[base]["per_query"][q][name] for q in data["queries"]]
            b = [doc["per_query"][q][name] for q in data["queries"]]
            p = stats.ttest_rel(b, a).pvalue
            expected.append(1.0 if math.isnan(p) else p)  # NumRet: 50 everywhere
            cells.append(significance["cells"][r][MEASURES.index(name)])
    adjusted = multipletests(expected, method="holm")[1]
    for cell, p, corrected in zip(cells, expected, adjusted):
        assert cell["p"] == pytest.approx(p, rel=1e-9, abs=1e-300)
        assert cell["p_adjusted"] == pytest.approx(corrected, rel=1e-9, abs=1e-300)
        assert cell["significant"] == (corrected < 0.05)


def trec_ranking(run: Path, query: str) -> list[str]:
    """trec_eval's order from the file's lines: score descending, then doc id descending
    (bytes), scores as 32-bit floats (trec_eval 9.0.8)."""
    rows = [line.split() for line in run.read_text().splitlines() if line.split()[0] == query]
    rows.sort(key=lambda f: (float(np.float32(f[4])), f[2].encode()), reverse=True)
    return [f[2] for f in rows]


def test_rankings_are_trec_eval_order_to_the_depth(cranfield):
    data = cranfield[1]
    assert data["depth"] == 20
    boolean = [run["name"] for run in data["runs"]].index("results_english_boolean.txt")
    for query in ("1", "2", "100", "225"):  # the boolean runs: many tied scores
        expected = trec_ranking(RUNS[boolean], query)[:20]
        assert data["rankings"][boolean][query] == expected


def test_judgments_are_the_qrels_grades(cranfield):
    data = cranfield[1]
    grades = {}
    for line in QRELS.read_text().splitlines():
        query, _, doc, grade = line.split()
        grades.setdefault(query, {})[doc] = int(grade)
    shown = {(q, d) for ranking in data["rankings"] for q, docs in ranking.items() for d in docs}
    expected = {}
    for query, doc in shown:
        if doc in grades.get(query, {}):
            expected.setdefault(query, {})[doc] = grades[query][doc]
    assert data["judgments"] == expected
    assert data["relevant"]["1"] == sum(g >= 1 for g in grades["1"].values())


def test_texts_are_the_datasets(cranfield):
    import ir_datasets
    data = cranfield[1]
    dataset = ir_datasets.load("cranfield")
    queries = {q.query_id: q.text for q in dataset.queries_iter()}
    assert data["query_texts"] == {q: queries[q] for q in data["queries"]}
    shown = {d for ranking in data["rankings"] for docs in ranking.values() for d in docs}
    assert set(data["docs"]) == shown
    assert all(len(text) <= 1000 for text in data["docs"].values())  # --max-chars 1000


def test_size_of_fifteen_runs(cranfield, tmp_path):
    """Measured: 15 runs x 225 queries, 7 measures, rankings to depth 20: 0.92 MB without
    the texts, 2.15 MB with Cranfield's (1.2 MB of them: almost every document is shown)."""
    with_texts = len(cranfield[0].encode())
    without = len(write_report(tmp_path / "r.html", QRELS, *RUNS, "--baseline", BASELINE,
                               *[f"-m{m}" for m in MEASURES]).encode())
    print(f"\nreport of 15 Cranfield runs: {without:,} bytes, with texts {with_texts:,} bytes")
    assert without < 1_500_000
    assert with_texts < 3_000_000


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of each script element."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data


def elements(page: str) -> Elements:
    parser = Elements()
    parser.feed(page)
    return parser


def test_nothing_is_loaded_from_elsewhere(cranfield):
    page = cranfield[0]
    found = elements(page)
    assert [tag for tag, _ in found.tags if tag in ("link", "img", "iframe", "object", "embed",
                                                     "base", "source", "video", "audio")] == []
    for tag, attributes in found.tags:
        assert "src" not in attributes, tag
        assert attributes.get("href", "#").startswith("#"), (tag, attributes)
    assert [tag for tag, a in found.tags if tag == "script"] == ["script", "script"]
    assert re.findall(r"https?://[^\s\"')]*", page) == [SVG_NAMESPACE]
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    assert "url(" not in style and "@import" not in style
    for call in ("fetch(", "XMLHttpRequest", "import(", "WebSocket", "navigator.sendBeacon"):
        assert call not in found.scripts[1], call


def test_the_assets_cannot_end_their_elements():
    for asset in ASSETS.glob("*"):
        if asset.suffix in (".js", ".css"):
            assert "</" not in asset.read_text(), asset.name


HOSTILE = ("</script><img src=x onerror=\"document.title='pwned'\"><script>alert(1)</script>"
           "<!-- {{SCRIPT}} & &amp; \u2028")


@pytest.fixture
def hostile(tmp_path) -> tuple[Path, ...]:
    """A qrels, a run, documents and queries whose ids and texts hold markup."""
    qrels = tmp_path / "h.qrels"
    qrels.write_text("q<1> 0 d</script> 1\nq<1> 0 d2 0\n")
    run = tmp_path / "h.run"
    run.write_text("q<1> Q0 d</script> 1 2.0 tag</b>\nq<1> Q0 d2 2 1.0 tag</b>\n"
                   "q<1> Q0 d3 3 0.5 tag</b>\n")
    docs = tmp_path / "docs.tsv"
    docs.write_text(f"d</script>\t{HOSTILE}\nd2\tplain\nd3\t<b>bold</b>\n")
    queries = tmp_path / "queries.tsv"
    queries.write_text(f"q<1>\t{HOSTILE}\n")
    return qrels, run, docs, queries


def test_hostile_texts_stay_data(hostile, tmp_path):
    qrels, run, docs, queries = hostile
    page = write_report(tmp_path / "h.html", qrels, run, "--docs", docs, "--queries", queries,
                        "--title", "<i>title</i>")
    found = elements(page)
    assert [tag for tag, _ in found.tags if tag in ("img", "b", "i")] == []
    assert page.count("</script>") == 2  # the data's and the code's own
    assert page.count("<script") == 2
    data = json.loads(found.scripts[0])
    assert data["docs"] == {"d</script>": HOSTILE, "d2": "plain", "d3": "<b>bold</b>"}
    assert data["query_texts"] == {"q<1>": HOSTILE}
    assert data["rankings"] == [{"q<1>": ["d</script>", "d2", "d3"]}]
    assert data["runs"][0]["tag"] == "tag</b>"
    assert "<title>&lt;i&gt;title&lt;/i&gt;</title>" in page
    assert "{{" not in page.replace("{{SCRIPT}}", "")  # every placeholder filled, once


def test_a_bad_run_line_is_one_line_and_nothing_is_written(tmp_path):
    out = tmp_path / "report.html"
    out.write_text("before")
    result = cli("report", FIXTURES / "seeds" / "pinecone.qrels",
                 FIXTURES / "errors" / "short-line.run", "-o", out)
    assert result.exit_code == 2
    assert result.output == (f"{FIXTURES / 'errors' / 'short-line.run'}:3: expected 6 fields "
                             "(query_id Q0 doc_id rank score tag), found 5\n")
    assert out.read_text() == "before"


def test_a_bad_docs_file_is_one_line(tmp_path, hostile):
    qrels, run, _, _ = hostile
    docs = tmp_path / "bad.tsv"
    docs.write_bytes(b"d2\tplain\nd3\t\xff\n")
    result = cli("report", qrels, run, "--docs", docs, "-o", tmp_path / "r.html")
    assert result.exit_code == 2
    assert result.output == f"{docs}:2: not UTF-8 text (byte 0xff)\n"
    assert not (tmp_path / "r.html").exists()


def test_a_missing_baseline_file_is_one_line(tmp_path, hostile):
    qrels, run, _, _ = hostile
    result = cli("report", qrels, run, "--baseline", tmp_path / "nothing.run",
                 "-o", tmp_path / "r.html")
    assert result.exit_code == 2
    assert len(result.output.splitlines()) == 1
    assert "nothing.run" in result.output
    assert not (tmp_path / "r.html").exists()


def test_the_output_may_not_be_an_input(hostile):
    qrels, run, docs, _ = hostile
    result = cli("report", qrels, run, "--docs", docs, "-o", docs)
    assert result.exit_code == 2
    assert result.output == f"{docs}: is also an input ({docs}): write the output to another file\n"


def test_the_shown_depth(hostile, tmp_path):
    qrels, run, _, _ = hostile
    out = tmp_path / "r.html"
    result = cli("report", qrels, run, "--shown", "2", "-o", out)
    assert result.output == (f"wrote {out}: {out.stat().st_size:,} bytes, 1 run, 1 query, "
                             "5 measures\n")
    data = blob(out.read_text(encoding="utf-8"))
    assert data["rankings"] == [{"q<1>": ["d</script>", "d2"]}]
    assert data["judgments"] == {"q<1>": {"d</script>": 1, "d2": 0}}
    assert data["docs"] is None and data["query_texts"] is None and data["significance"] is None


def test_curves_are_evaluate_iprec_means(cranfield):
    data = cranfield[1]
    names = [f"IPrec@{level / 10!r}" for level in range(11)]
    result = cli("evaluate", QRELS, RUNS[0], RUNS[4], "-f", "json", *[f"-m{n}" for n in names])
    for r, doc in zip((0, 4), json.loads(result.stdout)):
        assert data["pr"]["mean"][r] == [doc["summary"][n] for n in names]
        assert data["pr"]["per_query"][r][data["queries"].index("7")] == [
            round(doc["per_query"]["7"][n], 6) for n in names]


def test_a_query_a_run_lacks(hostile, tmp_path):
    """--missing skip: the query is not averaged, and has no value (null) in that run;
    zero (the default): it is an empty ranking, 0, and listed as zero-filled."""
    qrels, run, _, _ = hostile
    qrels.write_text(qrels.read_text() + "q2 0 d9 1\n")
    skip = blob(write_report(tmp_path / "s.html", qrels, run, "--missing", "skip", "-mP@2"))
    assert skip["queries"] == ["q<1>"] and skip["runs"][0]["skipped"] == ["q2"]
    assert skip["summary"] == [[0.5]]
    zero = blob(write_report(tmp_path / "z.html", qrels, run, "-mP@2"))
    assert zero["queries"] == ["q2", "q<1>"] and zero["runs"][0]["zero_filled"] == ["q2"]
    assert zero["per_query"] == [[[0.0, 0.5]]] and zero["summary"] == [[0.25]]
    assert zero["intervals"][0][0] == pytest.approx(list(stats.t.interval(
        0.95, 1, loc=0.25, scale=np.std([0.5, 0.0], ddof=1) / math.sqrt(2))), rel=1e-12)


def test_a_baseline_alone_is_refused(hostile, tmp_path):
    qrels, run, _, _ = hostile
    result = cli("report", qrels, run, "--baseline", run, "-o", tmp_path / "r.html")
    assert result.exit_code == 2
    assert result.output == (f"--baseline {run}: no other run to test against it; give the "
                             "runs to compare with it\n")


def test_ties_average(tmp_path):
    """--ties average: the means are evaluate's expected values over the tied orders; the
    curves, which have no expected value, are trec_eval's order, and a note says so."""
    runs = [RUNS[4], RUNS[3]]  # english_boolean (789 groups of ties), english_bm25
    data = blob(write_report(tmp_path / "r.html", QRELS, *runs, "--ties", "average", "-mAP",
                             "-mP@10"))
    result = cli("evaluate", QRELS, *runs, "--ties", "average", "-f", "json", "-mAP", "-mP@10")
    assert [dict(zip(("AP", "P@10"), row)) for row in data["summary"]] == [
        doc["summary"] for doc in json.loads(result.stdout)]
    trec = cli("evaluate", QRELS, runs[0], "-f", "json", "-mIPrec@0.5")
    assert data["pr"]["mean"][0][5] == json.loads(trec.stdout)["summary"]["IPrec@0.5"]
    assert data["notes"] == ["P-R curves under trec_eval's tie order: --ties average has no "
                             "expected interpolated precision"]
