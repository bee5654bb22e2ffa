"""Two qrels' agreement (``analysis.agreement``) as a table or JSON."""

from __future__ import annotations

import json
import functools
import math

from ..analysis.agreement import JudgmentAgreement, LeaderboardAgreement
from ..analysis.p_values import p_phrase
from ..model.words import counted
from .settings_words import leaderboard_settings, leaderboard_settings_lines


def _number(value: float, digits: int = 4) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def judgments_lines(agreement: JudgmentAgreement, names: tuple[str, str],
                    digits: int = 4) -> list[str]:
    a, b = names
    number = functools.partial(_number, digits=digits)
    lines = [f"judgments: {agreement.shared} (query, document) pairs judged by both; "
             f"{agreement.only_a} only in {a} (the reference), {agreement.only_b} only in {b}",
             f"agreement {number(agreement.percent)}   Cohen's kappa {number(agreement.kappa)}   "
             f"linear weighted kappa {number(agreement.kappa_linear)}   "
             f"Krippendorff's alpha (ordinal) {number(agreement.alpha_ordinal)}",
             "", f"grades: rows {a}, columns {b}"]
    width = max(6, *(len(str(x)) for x in agreement.confusion.ravel()))
    lines.append(" " * 8 + "".join(f"{g:>{width + 2}}" for g in agreement.grades))
    for grade, row in zip(agreement.grades, agreement.confusion):
        lines.append(f"{grade:>8}" + "".join(f"{x:>{width + 2}}" for x in row))
    for side, queries in ((a, agreement.queries_only_a), (b, agreement.queries_only_b)):
        if queries:
            lines.append(f"queries judged only in {side} ({len(queries)}): "
                         + ", ".join(queries[:10]) + (" ..." if len(queries) > 10 else ""))
    return lines


def leaderboard_lines(board: LeaderboardAgreement, names: tuple[str, str],
                      digits: int = 4) -> list[str]:
    a, b = names
    width = max(len(r) for r in board.runs)
    number = functools.partial(_number, digits=digits)
    lines = ["", f"{board.measure}: Kendall's tau-b {number(board.tau)}   tau_ap ({a} the "
             f"reference) {number(board.tau_ap)}   tau_ap_b {number(board.tau_ap_b)}",
             f"means over {_queries(board.queries_a, board.zero_filled_a)} under {a}, "
             f"{_queries(board.queries_b, board.zero_filled_b)} under {b}",
             f"{'run':<{width}}  {'under ' + a:>14}  {'under ' + b:>14}"]
    order = sorted(range(len(board.runs)), key=lambda i: -board.means_a[i])
    for i in order:
        lines.append(f"{board.runs[i]:<{width}}  {board.means_a[i]:>14.{digits}f}  "
                     f"{board.means_b[i]:>14.{digits}f}")
    if not board.swaps:
        lines.append("no pair of runs changes order")
    else:
        count = len(board.swaps)
        lines.append(f"{count} pair{' changes' if count == 1 else 's change'} order (first: "
                     f"higher under {a}); significant: under each qrels")
        for s in board.swaps:
            lines.append(f"  {s.first} > {s.second} under {a} ({s.delta_a:+.{digits}f}, {p_phrase(s.p_a)}"
                         f"{' significant' if s.significant_a else ''}), < under {b} "
                         f"({s.delta_b:+.{digits}f}, {p_phrase(s.p_b)}"
                         f"{' significant' if s.significant_b else ''})")
    lines.append(f"test: {board.test}; {board.correction}")
    return lines


def _queries(count: int, zero_filled: int) -> str:
    lacked = f" ({zero_filled} absent from a run, scored 0 there)" if zero_filled else ""
    return counted(count, "query") + lacked


def settings_lines(boards: list[LeaderboardAgreement]) -> list[str]:
    if not boards or boards[0].settings is None:
        return []
    return [""] + leaderboard_settings_lines(boards[0].settings)


def table_text(agreement: JudgmentAgreement, boards: list[LeaderboardAgreement],
               names: tuple[str, str], digits: int = 4) -> str:
    """``digits``: the decimals of the values (--digits; p-values keep their own)."""
    lines = judgments_lines(agreement, names, digits)
    for board in boards:
        lines += leaderboard_lines(board, names, digits)
    return "\n".join(lines + settings_lines(boards)) + "\n"


def json_text(agreement: JudgmentAgreement, boards: list[LeaderboardAgreement],
              names: tuple[str, str]) -> str:
    def clean(value):
        return None if isinstance(value, float) and math.isnan(value) else value

    document = {
        "reference": names[0], "other": names[1],
        "judgments": {
            "shared": agreement.shared, "only_reference": agreement.only_a,
            "only_other": agreement.only_b, "percent_agreement": agreement.percent,
            "cohens_kappa": clean(agreement.kappa), "cohens_kappa_linear": clean(agreement.kappa_linear),
            "krippendorff_alpha_ordinal": clean(agreement.alpha_ordinal),
            "grades": agreement.grades, "confusion": agreement.confusion.tolist(),
            "queries_only_reference": agreement.queries_only_a,
            "queries_only_other": agreement.queries_only_b},
        "leaderboards": [{
            "measure": b.measure, "runs": b.runs, "means_reference": b.means_a,
            "means_other": b.means_b, "kendall_tau_b": clean(b.tau), "tau_ap": clean(b.tau_ap),
            "tau_ap_b": clean(b.tau_ap_b), "test": b.test, "correction": b.correction,
            "queries_reference": b.queries_a, "queries_other": b.queries_b,
            "zero_filled_reference": b.zero_filled_a, "zero_filled_other": b.zero_filled_b,
            "swaps": [{"first": s.first, "second": s.second, "delta_reference": s.delta_a,
                       "delta_other": s.delta_b, "p_reference": clean(s.p_a), "p_other": clean(s.p_b),
                       "significant_reference": s.significant_a, "significant_other": s.significant_b}
                      for s in b.swaps]} for b in boards],
    }
    if boards and boards[0].settings is not None:
        document["settings"] = leaderboard_settings(boards[0].settings)
    return json.dumps(document, indent=2) + "\n"
