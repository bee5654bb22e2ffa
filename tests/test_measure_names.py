"""Measure names: trec_eval's and ir_measures' syntax, canonical names, precise errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_runner import cli
from searcheval import MeasureError, parse_measures
from searcheval.measures import SPECS

# name typed -> canonical names it stands for, and the names trec_eval prints for them
NAMES = [
    ("map", ["AP"], ["map"]),
    ("AP", ["AP"], ["map"]),
    ("MAP", ["AP"], ["map"]),
    ("AP@100", ["AP@100"], ["map_cut_100"]),
    ("P.5,10", ["P@5", "P@10"], ["P_5", "P_10"]),
    ("P.10,5", ["P@5", "P@10"], ["P_5", "P_10"]),  # trec_eval sorts cut-offs
    ("P_5", ["P@5"], ["P_5"]),
    ("P@5", ["P@5"], ["P_5"]),
    ("P(rel=2)@5", ["P(rel=2)@5"], ["P_5"]),
    ("AP(rel=2)", ["AP(rel=2)"], ["map"]),
    ("ndcg_cut.10", ["nDCG@10"], ["ndcg_cut_10"]),
    ("ndcg_cut_10", ["nDCG@10"], ["ndcg_cut_10"]),
    ("nDCG@10", ["nDCG@10"], ["ndcg_cut_10"]),
    ("nDCG", ["nDCG"], ["ndcg"]),
    ("ndcg.1=3,2=9", ["nDCG(gains={1:3,2:9})"], ["ndcg_1=3,2=9"]),
    ("recip_rank", ["RR"], ["recip_rank"]),
    ("RR", ["RR"], ["recip_rank"]),
    ("MRR", ["RR"], ["recip_rank"]),
    ("RR@10", ["RR@10"], [None]),
    ("R@100", ["R@100"], ["recall_100"]),
    ("recall.100", ["R@100"], ["recall_100"]),
    ("Success@1", ["Success@1"], ["success_1"]),
    ("success.1", ["Success@1"], ["success_1"]),
    ("Rprec", ["Rprec"], ["Rprec"]),
    ("Bpref", ["Bpref"], ["bpref"]),
    ("bpref", ["Bpref"], ["bpref"]),
    ("NumQ", ["NumQ"], ["num_q"]),
    ("NumRel", ["NumRel"], ["num_rel"]),
    ("NumRet", ["NumRet"], ["num_ret"]),
    ("NumRelRet", ["NumRelRet"], ["num_rel_ret"]),
    ("iprec_at_recall.0.1", ["IPrec@0.1"], ["iprec_at_recall_0.10"]),
    ("IPrec@0.1", ["IPrec@0.1"], ["iprec_at_recall_0.10"]),
    ("utility.2,-1,0,0", ["utility(coeffs=[2,-1,0,0])"], ["utility_2,-1,0,0"]),
    ("11pt_avg..25,.5,.75", ["11pt_avg(points=[0.25,0.5,0.75])"], ["11pt_avg_.25,.5,.75"]),
    ("set_F.0.5", ["SetF(beta=0.5)"], ["set_F_0.5"]),
    # Each spelling gets its tool's default; the canonical name always writes RBP's p.
    ("rbp.p=0.8", ["RBP(p=0.8)"], ["rbp_p=0.8"]),
    ("rbp", ["RBP(p=0.9)"], ["rbp"]),  # trec_eval 10's default persistence
    ("RBP", ["RBP(p=0.8)"], ["rbp_p=0.8"]),  # ir_measures' default persistence
    ("RBP(p=0.9)", ["RBP(p=0.9)"], ["rbp"]),
    ("RBP(rel=1)", ["RBP(rel=1,p=0.8)"], [None]),  # binary at level 1: not trec_eval's rbp
    ("ERR", ["ERR"], [None]),  # the whole ranking, as in ir_measures (not ERR@20)
    ("ERR(max_grade=4)@20", ["ERR@20"], [None]),  # gdeval.pl's 4 is the default
    ("ERR(max_grade=2)@20", ["ERR(max_grade=2)@20"], [None]),
    ("Judged", ["Judged"], [None]),  # the whole ranking, as in ir_measures (not Judged@10)
]


@pytest.mark.parametrize("text,canonical,trec", NAMES, ids=[n[0] for n in NAMES])
def test_names(text, canonical, trec):
    measures = parse_measures([text])
    assert [str(m) for m in measures] == canonical
    assert [m.trec_name for m in measures] == trec


def test_nicknames_expand_in_trec_eval_order():
    official = parse_measures(["official"])
    assert [m.trec_name for m in official][:9] == [
        "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank"]
    assert len(official) == 9 + 11 + 9  # + iprec_at_recall points + P cut-offs
    # out.test.a: runid and 93 `all` lines; and relstring, printed per query only (out.test.aq)
    assert len(parse_measures(["all_trec"])) == 94
    assert len(parse_measures(["all_trec"], compat=10)) == 99  # + rbp, rbp_resid, unj_5/10/20


def test_spaces_separate_measures_only_outside_brackets():
    assert [str(m) for m in parse_measures(["AP P@5  SetF(rel=1, beta=0.5) nDCG( gains={1:3, 2:9} )"])] \
        == ["AP", "P@5", "SetF(rel=1,beta=0.5)", "nDCG(gains={1:3,2:9})"]


def test_duplicates_are_dropped_in_order():
    assert [str(m) for m in parse_measures(["P@5", "P_5", "map", "P.5,10"])] == ["P@5", "AP", "P@10"]


ALL = parse_measures(["all_trec", "RR@10", "P(rel=2)@5", "nDCG(gains={0:1,1:3})", "rbp(p=0.5)",
                      "RBP", "RBP(rel=2)", "ERR", "ERR@20", "ERR(max_grade=3)@10", "Judged",
                      "AP(judged_only=True)", "nDCG(judged_only=True)@10", "P(rel=2,judged_only=True)@5", "NumRet(rel=2)",
                      "nDCG(dcg='exp-log2')@10", "SetRelP"],
                     compat=10)


@pytest.mark.parametrize("measure", ALL, ids=str)
def test_canonical_name_parses_back(measure):
    assert parse_measures([str(measure)]) == [measure]


@settings(derandomize=True, deadline=None, max_examples=200)
@given(st.sampled_from([s.trec for s in SPECS  # trec_eval syntax: trec_eval families
                        if s.names.since != 0 and s.parameters.default
                        and isinstance(s.parameters.default[0], int)]),
       st.lists(st.integers(1, 5000), min_size=1, max_size=4, unique=True),
       st.one_of(st.none(), st.integers(0, 4)))
def test_any_cutoff_measure_round_trips(family, cutoffs, rel):
    measures = parse_measures([f"{family}.{','.join(map(str, cutoffs))}"])
    assert sorted(m.cutoff for m in measures) == sorted(cutoffs)
    for m in measures:
        if rel is not None and m.spec.parameters.uses_rel:
            m = type(m)(m.family, cutoff=m.cutoff, rel=rel)
        assert parse_measures([str(m)]) == [m]


ERRORS = [
    (["ndgc@10"], "measure 'ndgc@10': unknown measure 'ndgc' (did you mean nDCG, Rndcg, DCG?) "
                  "at character 1"),
    (["P@x"], "measure 'P@x': expected a cutoff (a number) after '@', found 'x' at character 3"),
    (["P@0"], "measure 'P@0': cutoff must be a positive integer, found '0' at character 3"),
    (["P"], None),  # valid: trec_eval's default cut-offs
    (["R"], "measure 'R': R needs a cutoff, e.g. R@10 at character 1"),
    (["AP(rel=x)"], "measure 'AP(rel=x)': rel must be a whole number, found 'x' at character 4"),
    (["AP(rel=1.5)"], "measure 'AP(rel=1.5)': rel must be a whole number, found 1.5 at character 4"),
    (["nDCG(gain=cubic)@5"], "measure 'nDCG(gain=cubic)@5': nDCG has no parameter 'gain' with "
                             "that value at character 6"),
    (["AP(foo=1)"], "measure 'AP(foo=1)': AP has no parameter 'foo' with that value at character 4"),
    (["P.5,0"], "measure 'P.5,0': cutoffs must be positive integers, found '0' at character 3"),
    (["utility.1,2"], "measure 'utility.1,2': utility takes 4 parameter(s), found 2 at character 9"),
    (["ndcg.1"], "measure 'ndcg.1': expected level=gain pairs like 1=3,2=9, found '1' at character 6"),
    # Out of range (found by the hostile sweep): P(rel=-1)@5 counted unjudged documents
    # as relevant (0.32 on the library lab, ir_measures 0), IPrec@2 scored 0 and
    # IPrec@-0.1 as IPrec@0, RBP(p=1.5) -0.6, P@99999999999999999999 became P@1e20.
    (["P(rel=-1)@5"], "measure 'P(rel=-1)@5': rel must be a whole number >= 0, found -1 at "
                      "character 3"),
    (["IPrec@2"], "measure 'IPrec@2': a recall level is between 0 and 1, found 2 at character 7"),
    (["iprec_at_recall.-0.1"], "measure 'iprec_at_recall.-0.1': a recall level is between 0 "
                               "and 1, found -0.1 at character 17"),
    (["RBP(p=1.5)"], "measure 'RBP(p=1.5)': p must be between 0 and 1 (exclusive), found 1.5 "
                     "at character 5"),
    (["rbp_resid.p=0"], "measure 'rbp_resid.p=0': p must be between 0 and 1 (exclusive), "
                        "found 0 at character 11"),
    (["P@99999999999999999999"], "measure 'P@99999999999999999999': cutoff must be at most "
                                 "2147483647, found 99999999999999999999 at character 3"),
    (["P.5,99999999999"], "measure 'P.5,99999999999': cutoff must be at most 2147483647, found "
                          "99999999999 at character 3"),
    (["IPrec@1", "P(rel=0)@5", "RBP(p=0.5)", "Rprec_mult.2.0"], None),  # the edges stay valid
    # Ranges trec_eval does not check (its C code read for each): set_F's x in
    # (x+1)PR/(xP+R) below 0 makes the denominator cross 0 (x = -1: 0/0, trec_eval's -nan,
    # where P = R; on the library lab searcheval printed 0.0000); 11pt_avg's points are
    # iprec_at_recall's levels (2 scored 0, -0.5 as 0); Rprec_mult's rank (long)(x*R + 0.9)
    # is no rank for x <= 0 (trec_eval leaves 0); 1e400 is inf (utility inf, a numpy
    # warning; ndcg.1=1e400 a traceback; relstring.1e400 a traceback).
    (["set_F.-1"], "measure 'set_F.-1': set_F's beta must be at least 0, found -1 at "
                   "character 7"),
    (["SetF(beta=-0.5)"], "measure 'SetF(beta=-0.5)': set_F's beta must be at least 0, found "
                          "-0.5 at character 6"),
    (["11pt_avg.2"], "measure '11pt_avg.2': 11pt_avg's points must be between 0 and 1, found 2 "
                     "at character 10"),
    (["11pt_avg.0,-0.5"], "measure '11pt_avg.0,-0.5': 11pt_avg's points must be between 0 and "
                          "1, found -0.5 at character 10"),
    (["11pt_avg(points=[0.5,1.5])"], "measure '11pt_avg(points=[0.5,1.5])': 11pt_avg's points "
                                     "must be between 0 and 1, found 1.5 at character 10"),
    (["Rprec_mult.-1"], "measure 'Rprec_mult.-1': Rprec_mult's multiple of R must be above 0, "
                        "found -1 at character 12"),
    (["Rprec_mult.0,1"], "measure 'Rprec_mult.0,1': Rprec_mult's multiple of R must be above 0, "
                         "found 0 at character 12"),
    (["Rprec_mult@-0.5"], "measure 'Rprec_mult@-0.5': Rprec_mult's multiple of R must be above "
                          "0, found -0.5 at character 12"),
    (["utility.1e400,0,0,0"], "measure 'utility.1e400,0,0,0': coeffs must be a finite number, "
                              "found '1e400' (beyond a double's range) at character 9"),
    (["utility(coeffs=[1,-1e400,0,0])"], "measure 'utility(coeffs=[1,-1e400,0,0])': coeffs must "
                                         "be a finite number, found '-1e400' (beyond a double's "
                                         "range) at character 19"),
    (["ndcg.1=1e400"], "measure 'ndcg.1=1e400': the gain of level 1 must be a finite number, "
                       "found '1e400' (beyond a double's range) at character 6"),
    (["nDCG(gains={2:1e999})"], "measure 'nDCG(gains={2:1e999})': the gain of level 2 must be a "
                                "finite number, found '1e999' (beyond a double's range) at "
                                "character 15"),
    (["TBG(halflife=1e400)"], "measure 'TBG(halflife=1e400)': halflife must be a finite number, "
                              "found '1e400' (beyond a double's range) at character 14"),
    (["relstring.1e400"], "measure 'relstring.1e400': length must be a finite number, found "
                          "'1e400' (beyond a double's range) at character 11"),
    # trec_eval computes these (its documentation: "Gains are allowed to be 0 or negative";
    # relstring clamps a negative length to 0; set_F.0 is precision): they stay valid.
    (["set_F.0", "SetF(beta=0)", "ndcg.1=-3", "nDCG(gains={1:-1,2:3})", "relstring.-1",
      "11pt_avg.0,1", "Rprec_mult.0.01,3"], None),
]


@pytest.mark.parametrize("names,message", ERRORS, ids=[e[0][0] for e in ERRORS])
def test_error_messages(names, message):
    if message is None:
        parse_measures(names)
        return
    with pytest.raises(MeasureError) as info:
        parse_measures(names)
    assert str(info.value) == message


def test_error_every_bad_name_reported_at_once():
    with pytest.raises(MeasureError) as info:
        parse_measures(["map", "foo", "P@x", "nDCG@10", "bprf"])
    assert len(info.value.problems) == 3
    assert "'foo'" in info.value.problems[0] and "'bprf'" in info.value.problems[2]
    assert "did you mean" in info.value.problems[2] and "bpref" in info.value.problems[2]


# ranx's names (its metric_switch) of the measures searcheval has, with and without a
# cutoff as ranx writes them; relevant is grade >= 1 in both.
RANX_NAMES = [("precision@5", "P@5"), ("recall@100", "R@100"), ("r-precision", "Rprec"),
              ("mrr", "RR"), ("mrr@10", "RR@10"), ("map", "AP"), ("map@100", "AP@100"),
              ("ndcg", "nDCG"), ("ndcg@10", "nDCG@10"), ("hit_rate@5", "Success@5"),
              ("bpref", "Bpref")]


@pytest.mark.parametrize("ranx,canonical", RANX_NAMES)
def test_ranx_names_are_accepted(ranx, canonical):
    assert [str(m) for m in parse_measures([ranx])] == [canonical]


def test_an_exponent_is_a_number_in_the_canonical_syntax():
    """1e-3 was read as a name ("halflife takes a number, found '1e-3'"), which also hid
    1e400 from the finite check."""
    assert parse_measures(["TBG(halflife=1e-3)"]) == parse_measures(["TBG(halflife=0.001)"])
    assert parse_measures(["RBP(p=5e-1)"]) == parse_measures(["RBP(p=0.5)"])


def test_every_parameter_of_the_stored_trec_eval_cases_is_accepted():
    """What the real trec_eval computed on (fixtures/trec_eval-binary) is never refused."""
    import gzip
    import json
    from pathlib import Path

    path = Path(__file__).parent.parent / "fixtures" / "trec_eval-binary" / "cases.jsonl.gz"
    with gzip.open(path, "rt") as lines:
        asked = {m for line in lines for m in json.loads(line)["measures"]}
    assert {"set_F.0", "ndcg.1=-1,2=3", "Rprec_mult.0.2,1,1.5,3", "11pt_avg.0.1,0.9,1"} <= asked
    for name in sorted(asked):
        parse_measures([name])


@pytest.mark.parametrize("name,problem", [
    ("set_F.-1", "set_F's beta must be at least 0, found -1 at character 7"),
    ("SetF(beta=-1)", "set_F's beta must be at least 0, found -1 at character 6"),
    ("utility.1e400,0,0,0", "coeffs must be a finite number, found '1e400' (beyond a "
                            "double's range) at character 9"),
])
def test_a_parameter_out_of_range_is_one_line_and_exit_2(name, problem):
    """The newcomer's reproducers: -q --cross-check printed 0.0000 and exited 1 (native 0,
    pytrec_eval nan); utility.1e400 leaked a numpy RuntimeWarning."""
    result = cli("evaluate", "fixtures/seeds/library.qrels", "fixtures/seeds/library.run",
                 "-m", name, "-q", "--cross-check", "-f", "trec")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"measure {name!r}: {problem}\n"


def test_the_readme_lists_what_is_refused_and_what_is_kept():
    """The README's bullet on parameter ranges is true: every measure it names before
    "Kept" is refused, every one after is accepted (it claimed "out of range parameters are
    refused" while set_F.-1, 11pt_avg.2, Rprec_mult.-1 and utility.1e400 were computed)."""
    import re
    from pathlib import Path

    import docs_pages

    readme = docs_pages.text()
    bullet = re.search(r"\* \*\*Measure parameters that give no measure.*?(?=\n\* )", readme,
                       re.S).group()
    refused, kept = bullet.split("Kept,")
    named = lambda text: [n for n in re.findall(r"`([^`]+)`", text) if not n.startswith("-")]
    assert len(named(refused)) >= 10 and len(named(kept)) >= 6
    for name in named(refused):
        with pytest.raises(MeasureError):
            parse_measures([name])
    for name in named(kept):
        parse_measures([name])
