"""The HTML report in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by Selenium, the page opened from a file:// URL.

Marked ``browser``: the README's test command deselects these (a fresh machine has no
browser); ``.ci/run`` installs the two packages and runs ``python -m pytest -q -m browser``.
One browser for the module. References: ``evaluate -f json``'s values, the qrels file's
grades, ir_datasets' Cranfield texts, and the CSS colours the report declares.
"""

from __future__ import annotations

import csv
import io
import json
import re
import struct
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from cli_runner import cli
from test_report_html import BASELINE, HOSTILE, QRELS, RUNS

pytestmark = pytest.mark.browser

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"  # Debian's packages
WIDTH, HEIGHT = 1400, 1000
MEASURES = ("AP", "nDCG@10", "P@10", "RR", "R@100", "NumRet")
# report.css: --rel, --rel-strong (a grade above the relevance level), --unjudged, --nonrel
COLOURS = {"rel": "rgb(205, 235, 211)", "strong": "rgb(143, 209, 158)",
           "unjudged": "rgb(255, 247, 214)", "nonrel": "rgb(243, 244, 246)"}
SHOWN = """return [...arguments[0].querySelectorAll('li.doc')].map(item =>
    [item.dataset.doc, item.className.split(' '), getComputedStyle(item).backgroundColor])"""
CONSOLE: list[dict] = []  # every console entry of every page opened


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    # the machine has no network: Chromium's own connections (updates, sync, first-run
    # tasks) are left out, not refused one by one
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", f"--window-size={WIDTH},{HEIGHT}", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--disable-quic"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("browser")
    cranfield = folder / "cranfield.html"
    result = cli("report", QRELS, *RUNS, "--baseline", BASELINE, "--docs", "irds:cranfield",
                 "--queries", "irds:cranfield", *[f"-m{m}" for m in MEASURES], "-o", cranfield)
    assert result.exit_code == 0, result.output
    return {"cranfield": cranfield}


@pytest.fixture(scope="module")
def evaluated() -> dict[str, dict]:
    result = cli("evaluate", QRELS, *RUNS, "-f", "json", *[f"-m{m}" for m in MEASURES])
    assert result.exit_code == 0, result.output
    return {doc["run"]: doc for doc in json.loads(result.stdout)}


def open_page(driver, path: Path) -> None:
    """Load the report from its file:// URL and wait until its script has drawn it."""
    CONSOLE.extend(driver.get_log("browser"))  # what the page before logged
    driver.get(path.resolve().as_uri())
    WebDriverWait(driver, 20).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")


def leaderboard_order(driver) -> list[str]:
    rows = driver.find_elements(By.CSS_SELECTOR, "#leaderboard-table tbody tr")
    return [row.get_attribute("data-run") for row in rows]


def test_leaderboard_shows_evaluate_json_values(browser, pages, evaluated):
    open_page(browser, pages["cranfield"])
    for row in browser.find_elements(By.CSS_SELECTOR, "#leaderboard-table tbody tr"):
        summary = evaluated[row.get_attribute("data-run")]["summary"]
        values = row.find_elements(By.CSS_SELECTOR, "span.value")
        assert len(values) == len(MEASURES)
        for measure, cell in zip(MEASURES, values):
            assert float(cell.get_attribute("data-value")) == summary[measure]
            shown = str(summary[measure]) if measure == "NumRet" else f"{summary[measure]:.4f}"
            assert cell.text == shown
    assert len(leaderboard_order(browser)) == 15


def test_sorting_a_column(browser, pages, evaluated):
    open_page(browser, pages["cranfield"])
    header = browser.find_elements(By.CSS_SELECTOR, "#leaderboard-table th")[2]  # nDCG@10
    assert header.text == "nDCG@10"
    header.click()
    assert header.get_attribute("data-sort") == "desc"
    by_ndcg = sorted(evaluated, key=lambda run: -evaluated[run]["summary"]["nDCG@10"])
    assert leaderboard_order(browser) == by_ndcg
    header.click()
    assert header.get_attribute("data-sort") == "asc"
    assert leaderboard_order(browser) == by_ndcg[::-1]


def per_query_rows(driver) -> list[str]:
    rows = driver.find_elements(By.CSS_SELECTOR, "#per-query-table tbody tr")
    return [row.get_attribute("data-query") for row in rows]


def test_filtering_queries(browser, pages):
    import ir_datasets
    texts = {q.query_id: q.text for q in ir_datasets.load("cranfield").queries_iter()}
    open_page(browser, pages["cranfield"])
    box = browser.find_element(By.ID, "per-query-filter")
    box.send_keys("225")
    assert per_query_rows(browser) == ["225"]
    assert browser.find_element(By.ID, "per-query-table-count").text == "showing 1 of 225 rows"
    box.clear()
    box.send_keys("Shock")
    expected = [q for q in texts if "shock" in texts[q].lower()]
    assert per_query_rows(browser) == expected and len(expected) > 5


def test_a_query_s_rankings_show_their_judgments(browser, pages):
    import ir_datasets
    docs = {d.doc_id: d.default_text() for d in ir_datasets.load("cranfield").docs_iter()}
    grades = {}
    for line in QRELS.read_text().splitlines():
        query, _, doc, grade = line.split()
        grades[(query, doc)] = int(grade)
    open_page(browser, pages["cranfield"])
    browser.find_element(By.CSS_SELECTOR, '#per-query-table a.query-link[data-query="3"]').click()
    assert Select(browser.find_element(By.ID, "query-select")).first_selected_option.get_attribute("value") == "3"
    columns = browser.find_elements(By.CSS_SELECTOR, "#rankings .ranking")
    assert [c.get_attribute("data-run") for c in columns] == [run.name for run in RUNS[:6]]
    seen = set()
    for column in columns:
        items = browser.execute_script(SHOWN, column)  # one call, not three per document
        assert len(items) == 20
        for doc, classes, colour in items:
            grade = grades.get(("3", doc))
            kind = "unjudged" if grade is None else "rel" if grade >= 1 else "nonrel"
            assert kind in classes
            assert colour == COLOURS["strong" if kind == "rel" and grade > 1 else kind]
            seen.add(kind)
    assert {"rel", "unjudged"} <= seen
    first = columns[3].find_element(By.CSS_SELECTOR, "li.doc")  # results_english_bm25.txt
    first.click()
    assert browser.find_element(By.ID, "doc-text").text == docs[first.get_attribute("data-doc")][:1000].strip()
    query = browser.find_element(By.ID, "query-text").text.lower()  # the query's words marked
    marked = {m.text.lower() for m in browser.find_elements(By.CSS_SELECTOR, "#doc-text mark")}
    assert marked and marked <= set(re.findall(r"\w{3,}", query)) - {"what", "have", "been"}


# Where an element is on screen, and what the browser shows at the middle of its first line
IN_VIEW = """const box = arguments[0].getBoundingClientRect();
const line = Math.min(box.top + 8, (box.top + box.bottom) / 2);
const shown = document.elementFromPoint((box.left + box.right) / 2, line);
return [box.top, box.bottom, innerHeight, shown !== null && arguments[0].contains(shown)]"""


def test_a_clicked_document_s_text_comes_into_view(browser, pages):
    # The text opens under six rankings of 20 documents, far below the document clicked:
    # the click scrolls it into view (the panel, or its top when it is taller than the
    # window), so that the click visibly does something
    open_page(browser, pages["cranfield"])
    browser.find_element(By.CSS_SELECTOR, '#per-query-table a.query-link[data-query="3"]').click()
    first = browser.find_elements(By.CSS_SELECTOR, "#rankings .ranking")[3].find_element(
        By.CSS_SELECTOR, "li.doc")
    first.click()
    panel = browser.find_element(By.ID, "doc-panel")
    for part in (panel.find_element(By.TAG_NAME, "strong"), browser.find_element(By.ID, "doc-text")):
        top, bottom, height, shown = browser.execute_script(IN_VIEW, part)
        assert 0 <= top < height and shown, (part.text[:40], top, bottom, height)
    top, bottom, height, _ = browser.execute_script(IN_VIEW, panel)
    assert bottom <= height or top <= 1  # the whole panel, or as much as the window holds


def test_significance_marks_print_p_as_the_tables_do(browser, pages):
    # compare -f csv's p-values (scipy's t-test, Holm over the same comparisons): a title
    # writes one below 0.0001 as "p < 0.0001", as every text output does, never 3.9e-33
    result = cli("compare", QRELS, *RUNS, "--baseline", BASELINE, "-f", "csv",
                 *[f"-m{m}" for m in MEASURES])
    assert result.exit_code == 0, result.output
    rows = {(row["run"], row["measure"]): row for row in csv.DictReader(io.StringIO(result.stdout))}

    def phrase(name: str, p: str) -> str:
        return f"{name} < 0.0001" if float(p) < 0.0001 else f"{name} = {float(p):.4f}"

    open_page(browser, pages["cranfield"])
    tiny = 0
    for row in browser.find_elements(By.CSS_SELECTOR, "#leaderboard-table tbody tr"):
        run = row.get_attribute("data-run")
        marks = row.find_elements(By.CSS_SELECTOR, "span.mark")
        if run == BASELINE:
            continue
        assert len(marks) == len(MEASURES)
        for measure, mark in zip(MEASURES, marks):
            expected = rows[(run, measure)]
            title = mark.get_attribute("title")
            assert f": {phrase('p', expected['p'])}, {phrase('corrected p', expected['p_adjusted'])};" in title
            tiny += float(expected["p_adjusted"]) < 0.0001
    assert tiny > 10  # the boolean and custom runs against bm25


def test_differences_between_two_chosen_runs(browser, pages, evaluated):
    open_page(browser, pages["cranfield"])
    names = list(evaluated)
    Select(browser.find_element(By.ID, "diff-a")).select_by_value(str(names.index("results_simple_bm25.txt")))
    Select(browser.find_element(By.ID, "diff-b")).select_by_value(str(names.index("results_english_classic.txt")))
    Select(browser.find_element(By.ID, "diff-measure")).select_by_visible_text("P@10")
    a = evaluated["results_simple_bm25.txt"]["per_query"]
    b = evaluated["results_english_classic.txt"]["per_query"]
    better = sum(b[q]["P@10"] > a[q]["P@10"] for q in a)
    worse = sum(b[q]["P@10"] < a[q]["P@10"] for q in a)
    summary = browser.find_element(By.ID, "diff-summary").text
    assert (f"better on {better}, same on {len(a) - better - worse}, worse on {worse} "
            f"of {len(a)} queries") in summary
    assert len(browser.find_elements(By.CSS_SELECTOR, "#diff-chart rect.bar")) == len(a)


def test_nothing_is_fetched(browser, pages):
    open_page(browser, pages["cranfield"])
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0


def test_hostile_texts_show_as_text(browser, tmp_path):
    qrels, run, docs, queries = tmp_path / "h.qrels", tmp_path / "h.run", tmp_path / "d.tsv", tmp_path / "q.tsv"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2 1.0 tag\n")
    docs.write_text(f"d1\t{HOSTILE}\nd2\tplain\n")
    queries.write_text(f"q1\t{HOSTILE}\n")
    page = tmp_path / "hostile.html"
    result = cli("report", qrels, run, "--docs", docs, "--queries", queries, "-o", page,
                 "--title", "<i>t</i>")
    assert result.exit_code == 0, result.output
    open_page(browser, page)
    assert browser.title == "<i>t</i>"  # not 'pwned': no onerror ran
    assert browser.execute_script("return document.querySelectorAll('img, b, i').length") == 0
    text = browser.execute_script("return document.getElementById('query-text').textContent")
    assert text == HOSTILE
    browser.find_element(By.CSS_SELECTOR, '#rankings li.doc[data-doc="d1"]').click()
    assert browser.execute_script("return document.getElementById('doc-text').textContent") == HOSTILE


def test_screenshot(browser, pages, tmp_path):
    open_page(browser, pages["cranfield"])
    browser.find_element(By.CSS_SELECTOR, 'nav a[href="#query"]').click()
    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot))
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    inner = browser.execute_script("return [innerWidth, innerHeight, devicePixelRatio]")
    assert (width, height) == (round(inner[0] * inner[2]), round(inner[1] * inner[2]))
    assert len(data) > 50_000  # coloured rankings and text, not a blank page (a few KB)


def test_no_errors_in_the_console(browser):
    CONSOLE.extend(browser.get_log("browser"))
    assert [entry for entry in CONSOLE if entry["level"] in ("SEVERE", "WARNING")] == []
