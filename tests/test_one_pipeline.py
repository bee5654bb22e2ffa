"""One configuration, one pipeline (issue 34, item 1): every entry point turns its options
into a Configuration in one place (``engine.configure``) and evaluates through one
pipeline (``searcheval.pipeline``), so a setting means the same numbers wherever it is
given.

The structure is read from the source (where ``Settings`` is built, where an engine is
called, which modules name one setting, how many parameters the command line's helpers
take); the behaviour is held to pytrec_eval, the reference engine, on runs the test cuts
to their first documents itself: ``-M 3`` (depth) given to each entry point must give
pytrec_eval's numbers on the run cut to 3 documents a query, as trec_eval's -M does.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import searcheval
from tests.cli_runner import cli

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "searcheval"
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
QRELS = CRANFIELD / "qrel"
RUNS = sorted((CRANFIELD / "results").glob("*.txt"))[:2]
DEPTH = 3
MEASURES = ["map", "P_5", "recip_rank", "ndcg_cut_10"]  # pytrec_eval's names
ASKED = ["AP", "P@5", "RR", "nDCG@10"]  # the same measures, as asked for here


def _modules() -> list[tuple[str, ast.AST]]:
    return [(str(path.relative_to(PACKAGE)), ast.parse(path.read_text(encoding="utf-8")))
            for path in sorted(PACKAGE.rglob("*.py"))]


def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                yield None, func.id
            elif isinstance(func, ast.Attribute):
                owner = func.value.id if isinstance(func.value, ast.Name) else None
                yield owner, func.attr


def test_settings_are_built_in_one_place():
    building = sorted({name for name, tree in _modules()
                       if any(attr == "Settings" for _, attr in _calls(tree))})
    assert building == ["engine/configure.py"]


def test_an_engine_is_called_from_one_place():
    """An engine's ``evaluate`` and ``Results.of`` only in the pipeline, and in the
    cross-check for its reference engine's values."""
    calls: dict[str, set[str]] = {}
    for name, tree in _modules():
        for owner, attr in _calls(tree):
            if (owner, attr) in (("native", "evaluate"), ("Results", "of"), ("pytrec", "evaluate"),
                                 ("engine", "evaluate")):
                calls.setdefault(f"{owner}.{attr}", set()).add(name)
    assert "native.evaluate" not in calls  # native is imported as the pipeline's engine
    assert calls["engine.evaluate"] == {"pipeline.py"}
    # the cross-check holds the pipeline's values to the reference engine's own
    assert calls["Results.of"] == {"pipeline.py", "analysis/crosscheck.py"}
    assert calls["pytrec.evaluate"] == {"analysis/crosscheck.py"}


def test_one_setting_is_named_in_at_most_four_modules():
    """A setting is a field of Settings, a flag, the preset that sets it and the step that
    applies it: the identical-id rule of BEIR is named nowhere else."""
    naming = sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                    if "ignore_identical_ids" in path.read_text(encoding="utf-8"))
    assert naming == ["cli/options.py", "engine/peer_presets.py", "pipeline.py", "settings.py"]


def test_no_command_line_helper_takes_more_than_20_parameters():
    """The click commands take one parameter per flag; what they call takes the
    evaluation options as one value (``cli.options.Evaluation``)."""
    long = {}
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                commands = any(isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute)
                               and d.func.attr in ("command", "option", "argument")
                               for d in node.decorator_list)
                count = len(node.args.args) + len(node.args.kwonlyargs)
                if count > 20 and not commands:
                    long[f"{path.name}:{node.name}"] = count
    assert long == {}


# ---- the same setting, the same numbers, through every entry point ------------------------

def _cut(path: Path, depth: int) -> dict[str, dict[str, float]]:
    """The run's first ``depth`` documents a query in trec_eval's order (score descending,
    then doc id descending), as a dict for pytrec_eval."""
    rows: dict[str, list[tuple[float, str]]] = {}
    for line in path.read_text().splitlines():
        query, _, doc, _, score, *_ = line.split()
        rows.setdefault(query, []).append((float(score), doc))
    return {query: {doc: score for score, doc in sorted(docs, reverse=True)[:depth]}
            for query, docs in rows.items()}


@pytest.fixture(scope="module")
def reference() -> dict[str, dict[str, float]]:
    """pytrec_eval's means (over the queries in both, as trec_eval without -c) of each run
    cut to DEPTH documents a query."""
    import pytrec_eval
    qrels: dict[str, dict[str, int]] = {}
    for line in QRELS.read_text().splitlines():
        query, _, doc, grade = line.split()
        qrels.setdefault(query, {})[doc] = int(grade)
    means = {}
    for path in RUNS:
        cut = _cut(path, DEPTH)
        per_query = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(cut)
        means[path.name] = {m: sum(v[m] for v in per_query.values()) / len(per_query)
                            for m in MEASURES}
    return means


def _close(got: dict[str, float], want: dict[str, float]) -> None:
    assert [round(got[a], 12) for a in ASKED] == [round(want[m], 12) for m in MEASURES]


def test_the_api_evaluate_and_an_evaluator_take_the_depth(reference):
    by_run = searcheval.evaluate(QRELS, [str(p) for p in RUNS], ASKED, depth=DEPTH,
                                 missing="skip")
    evaluator = searcheval.Evaluator(QRELS, ASKED, depth=DEPTH, missing="skip")
    for path in RUNS:
        _close(by_run[path.name].summary(), reference[path.name])
        _close(evaluator.evaluate(path).summary(), reference[path.name])


def test_compare_and_experiment_take_the_depth(reference):
    comparison = searcheval.compare(QRELS, [str(p) for p in RUNS], ASKED, depth=DEPTH,
                                    missing="skip")
    for results, path in zip(comparison.results, RUNS):
        _close(results.summary(), reference[path.name])
    table = searcheval.experiment(QRELS, {p.name: str(p) for p in RUNS}, ASKED, depth=DEPTH,
                                  missing="skip")
    for path in RUNS:
        row = table.loc[table["name"] == path.name].iloc[0]
        _close({a: float(row[a]) for a in ASKED}, reference[path.name])


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_the_commands_take_the_depth(reference, command):
    result = cli(command, QRELS, *RUNS, *[x for a in ASKED for x in ("-m", a)], "-M", DEPTH,
                 "--missing", "skip", "-f", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    runs = data["runs"] if command == "compare" else data
    runs = runs if isinstance(runs, list) else [runs]
    for entry, path in zip(runs, RUNS):
        _close(entry["summary"] if "summary" in entry else entry["means"], reference[path.name])


def test_batch_takes_the_depth(reference, tmp_path):
    result = cli("batch", QRELS, *RUNS, "-o", tmp_path / "out",
                 *[x for a in ASKED for x in ("-m", a)], "-M", DEPTH, "--missing", "skip")
    assert result.exit_code == 0, result.output
    for path in RUNS:
        written = json.loads((tmp_path / "out" / "runs" / f"{path.name}.json").read_text())
        _close(written["summary"], reference[path.name])


def test_report_takes_the_depth_it_evaluates_and_shows_its_own(reference, tmp_path):
    """report's -M/--depth is evaluate's (documents evaluated); --shown is the documents
    shown, which changes no number."""
    out = tmp_path / "r.html"
    result = cli("report", QRELS, *RUNS, *[x for a in ASKED for x in ("-m", a)], "-M", DEPTH,
                 "--missing", "skip", "--shown", 7, "-o", out)
    assert result.exit_code == 0, result.output
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                      out.read_text(encoding="utf-8"), re.S)
    data = json.loads(found.group(1))
    assert data["depth"] == 7
    for summary, path in zip(data["summary"], RUNS):
        got = dict(zip(ASKED, summary))
        _close({a: float(v) for a, v in got.items()}, reference[path.name])


def test_report_says_its_old_depth_meaning_moved(tmp_path):
    result = cli("report", QRELS, RUNS[0], "--depth", 5, "-o", tmp_path / "r.html")
    assert result.exit_code == 0
    assert ("report --depth is evaluate's -M (the documents evaluated); --shown N is how "
            "many documents are shown") in result.stderr


def test_the_options_every_entry_point_takes_are_the_settings_a_user_sets():
    """``settings.Options`` (what an IDE completes in ``evaluate(...)``) lists every field
    of Settings but the presets' own, and how the numbers are computed."""
    from dataclasses import fields

    from searcheval.settings import PRESET_ONLY, Options, Settings
    own = {f.name for f in fields(Settings)} - set(PRESET_ONLY)
    assert set(Options.__annotations__) == own | {"engine", "like"}


def test_an_unknown_option_is_a_type_error_as_a_keyword_python_does_not_know():
    with pytest.raises(TypeError, match="unexpected keyword argument 'depht'"):
        searcheval.evaluate(QRELS, RUNS[0], ["AP"], depht=3)
