"""batch --costs: the C/W/L measures' per-document costs, as evaluate takes them.

Reference: evaluate --costs with --cross-check, which holds each number to cwl_eval's own
engine (a child process) before the batch's numbers are held to it. The batch's stamp
follows the costs' content: an edited cost re-evaluates the run, the same costs at
another path do not.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from cli_runner import batch, cli, leaderboard, run_counts

ROOT = Path(__file__).resolve().parent.parent
CRANFIELD = ROOT / "fixtures" / "cranfield-runs"
RUN = CRANFIELD / "results" / "results_english_bm25.txt"
MEASURES = ["INST(value=ETC,T=2,min_rel=0,max_rel=1)", "TBG(halflife=3,min_rel=0,max_rel=1)",
            "U(L=20,min_rel=0,max_rel=1)"]  # canonical names: the columns of both outputs


def _write_costs(path: Path, shift: float = 0.0) -> Path:
    """A cost for every document of the run (1.5 to 4.5 by its id), ``shift`` added."""
    docs = sorted({line.split()[2] for line in RUN.read_text().splitlines()}, key=int)
    path.write_text("".join(f"{d} {1.5 + int(d) % 4 + shift}\n" for d in docs))
    return path


def _evaluated(costs: Path) -> dict[str, float]:
    """evaluate --costs --cross-check's means (the cross-check fails the command unless
    cwl_eval computes the same numbers)."""
    flags = [a for m in MEASURES for a in ("-m", m)]
    out = cli("evaluate", CRANFIELD / "qrel", RUN, *flags, "--costs", costs, "--cross-check",
              "-f", "csv")
    assert out.exit_code == 0, out.stderr
    rows = csv.DictReader(io.StringIO(out.stdout))
    return {r["measure"]: float(r["value"]) for r in rows if r["query_id"] == "all"}


def _batch(outdir: Path, costs: Path, *extra) -> tuple[str, dict[str, float]]:
    flags = [a for m in MEASURES for a in ("-m", m)]
    out = batch(CRANFIELD / "qrel", RUN, "-o", outdir, *flags, "--costs", costs, *extra)
    assert out.exit_code == 0, out.stderr
    (row,) = leaderboard(outdir)
    return run_counts(out), {m: float(row[m]) for m in MEASURES}


@pytest.mark.parametrize("extra", [(), ("--stream",)], ids=["whole", "streamed"])
def test_batch_costs_are_evaluate_costs(tmp_path, extra):
    costs = _write_costs(tmp_path / "costs")
    expected = _evaluated(costs)
    counts, means = _batch(tmp_path / "out", costs, *extra)
    assert counts == "1 run: 1 evaluated, 0 up to date, 0 failed"
    assert means == pytest.approx(expected, abs=1e-12)
    without = batch(CRANFIELD / "qrel", RUN, "-o", tmp_path / "plain", "-m", MEASURES[0])
    (row,) = leaderboard(tmp_path / "plain")
    assert without.exit_code == 0 and float(row[MEASURES[0]]) != means[MEASURES[0]]


def test_an_edited_cost_file_re_evaluates_the_run(tmp_path):
    costs, out = _write_costs(tmp_path / "costs"), tmp_path / "out"
    assert _batch(out, costs)[0] == "1 run: 1 evaluated, 0 up to date, 0 failed"
    assert _batch(out, costs)[0] == "1 run: 0 evaluated, 1 up to date, 0 failed"
    _write_costs(costs, shift=1.0)  # the same path, other costs
    counts, means = _batch(out, costs)
    assert counts == "1 run: 1 evaluated, 0 up to date, 0 failed"
    assert means == pytest.approx(_evaluated(costs), abs=1e-12)


def test_the_same_costs_at_another_path_keep_the_run_up_to_date(tmp_path):
    costs, out = _write_costs(tmp_path / "costs"), tmp_path / "out"
    assert _batch(out, costs)[0] == "1 run: 1 evaluated, 0 up to date, 0 failed"
    moved = tmp_path / "elsewhere.costs"
    moved.write_bytes(costs.read_bytes())
    assert _batch(out, moved)[0] == "1 run: 0 evaluated, 1 up to date, 0 failed"


def test_a_bad_cost_file_stops_the_batch_before_any_output(tmp_path):
    costs = tmp_path / "costs"
    costs.write_text("12 2.5\n78 ten\n")
    out = batch(CRANFIELD / "qrel", RUN, "-o", tmp_path / "out", "-m", MEASURES[0],
                "--costs", costs)
    assert (out.exit_code, out.stdout) == (2, "")
    assert out.stderr == f"{costs}:2: expected a cost (a number >= 0), found 'ten'\n"
    assert not (tmp_path / "out").exists()
