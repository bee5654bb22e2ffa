"""The settings under a table, said once for several runs: what every run shares, then
each run's own lines; under many runs a short block that counts instead of listing (-v
lists them all, --quiet leaves the block out). Each fact's wording is
``settings_words``'."""

from __future__ import annotations

from ..model.words import counted
from ..results import Results
from . import spread_cells
from .settings_words import foot_lines


def settings_lines(results: Results) -> list[str]:
    """One run's settings, a fact a line (``settings_words``), then its spread and notes."""
    return foot_lines(results) + spread_cells.describe(results) + results.notes


def shared_settings_lines(results_list: list[Results], notes: str = "short") -> list[str]:
    """The settings said once: what every run shares, then the runs and their tags, then
    under each run only what is its own (its left-out queries, its notes). ``notes``:
    "all" says all of it; "short" (more than ``NAMED_RUNS`` runs) says in one line each how many runs have
    ties that move a value and left-out queries, "-v" naming them (``short_run_lines``);
    "none" nothing."""
    if notes == "none":
        return []
    per_run = [settings_lines(r) for r in results_list]
    if len(per_run) == 1:
        return per_run[0]
    if notes == "short" and len(per_run) > NAMED_RUNS:
        return short_run_lines(results_list, per_run)
    own = [[line for line in lines if not line.startswith("run: ")] for lines in per_run]
    common = [line for line in own[0] if all(line in lines for lines in own[1:])]
    tags = {r.run_tag for r in results_list}
    if len(tags) == 1:  # one tag for all (a tool's default): said once
        lines = [f"runs ({len(results_list)}, all tagged {tags.pop()}): "
                 + ", ".join(r.run for r in results_list)]
    else:
        lines = [f"runs ({len(results_list)}): " + ", ".join(
            r.run if r.run == r.run_tag else f"{r.run} (tag {r.run_tag})" for r in results_list)]
    lines += [line.strip() for line in common]
    for results, mine in zip(results_list, own):  # one line per run
        its_own = [line.strip() for line in mine if line not in common]
        lines += [f"{results.run}: " + "; ".join(its_own)] if its_own else []
    return lines


NAMED_RUNS = 5  # up to this many runs, every run's lines; more are counted (the table names them)
# Per-run lines a short block counts instead of listing (settings_words.foot_lines').
_COUNTED = ("queries: ", "  zero-filled (", "  skipped (", "  ignored (")


def short_run_lines(results_list: list[Results], per_run: list[list[str]]) -> list[str]:
    """Many runs' settings in a few lines: what they share, said once; the runs counted
    (the table names them); ties and
    left-out queries that differ between runs counted over the runs, each with the way to
    see them (-v); any other line of a run's own (its notes) kept, said once for the runs
    that share it. Nothing that changes a number goes unsaid: every count is there."""
    own = [[line for line in lines if not line.startswith("run: ")] for lines in per_run]
    common = [line for line in own[0] if all(line in lines for lines in own[1:])]
    counted = {f"  {r.tied}" for r in results_list} - set(common)
    if not any(line.startswith("queries: ") for line in common):
        counted |= {line for lines in own for line in lines if line.startswith(_COUNTED)}
    lines = [_runs_line(results_list)]
    for line in common:
        lines.append(line.strip())
        if line.startswith("ties: ") and counted & {f"  {r.tied}" for r in results_list}:
            lines += _counted_ties(results_list)
        if line.startswith("  missing=") and any(line.startswith(_COUNTED) for line in counted):
            lines += _counted_queries(results_list)
    kept: dict[str, list[str]] = {}
    for results, mine in zip(results_list, own):
        for line in mine:
            if line not in common and line not in counted:
                kept.setdefault(line.strip(), []).append(results.run)
    lines += [f"{', '.join(runs) if len(runs) < len(results_list) else 'every run'}: {line}"
              for line, runs in kept.items()]
    return lines


def _runs_line(results_list: list[Results]) -> str:
    tags = {r.run_tag for r in results_list}
    return f"runs: {len(results_list)}" + (f", all tagged {tags.pop()}" if len(tags) == 1
                                            else " (-v: their tags)")


def _counted_ties(results_list: list[Results]) -> list[str]:
    counts = [r.tie_counts for r in results_list]
    with_ties = sum(tied > 0 for tied, _ in counts)
    moving = sum(mixed > 0 for _, mixed in counts)
    return [f"  {with_ties} of {counted(len(results_list), 'run')} have tied scores; in "
            f"{moving} of them tied documents differ in relevance, so values depend on the "
            "tie rule (see --ties; -v: per run)"]


def _counted_queries(results_list: list[Results]) -> list[str]:
    total = len(results_list)
    averaged = sorted({len(r.query_ids) for r in results_list})
    lines = [f"  queries averaged: {averaged[0]}" if len(averaged) == 1 else
             f"  queries averaged: {averaged[0]} to {averaged[-1]} (-v: per run)"]
    lacking = sum(bool(r.zero_filled or r.skipped) for r in results_list)
    if lacking:
        how = "zero-filled" if results_list[0].settings.missing == "zero" else "skipped"
        lines.append(f"  {lacking} of {counted(total, 'run')} lack queries of the qrels, {how} "
                     "(-v: which)")
    ignoring = sum(bool(r.ignored) for r in results_list)
    if ignoring:
        lines.append(f"  {ignoring} of {counted(total, 'run')} have queries the qrels lack, ignored "
                     "(-v: which)")
    return lines
