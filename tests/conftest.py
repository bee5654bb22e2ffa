from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to reach the network fails the test (nothing may download): for the
    ir_datasets tests, which must read only the files given to them."""
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args}")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


# ir_datasets' files under the names it looks for (DESIGN.md: loaded offline, no hash check).
IRDS_CRANFIELD = {"docs.txt": "cran.all.1400", "queries.txt": "cran.qry", "qrels.txt": "cranqrel"}


@pytest.fixture(scope="session", autouse=True)
def irds_home(tmp_path_factory) -> Iterator[Path]:
    """A private IR_DATASETS_HOME holding Cranfield, set for the whole session.

    ir_datasets reads IR_DATASETS_HOME once, when first imported, so it is set before any
    test runs; no test reads or writes the developer's ~/.ir_datasets.
    """
    import os
    import shutil
    import sys

    # a test module that imports ir_datasets at its top has it read the home before this
    assert "ir_datasets" not in sys.modules, (
        "ir_datasets was imported while the tests were collected: import it inside the "
        "tests, so that it reads the IR_DATASETS_HOME set here")
    home = tmp_path_factory.mktemp("ir_datasets_home")
    (home / "cranfield").mkdir()
    for name, source in IRDS_CRANFIELD.items():
        shutil.copyfile(FIXTURES / "cranfield" / source, home / "cranfield" / name)
    saved = os.environ.get("IR_DATASETS_HOME")
    os.environ["IR_DATASETS_HOME"] = str(home)
    yield home
    if saved is None:
        os.environ.pop("IR_DATASETS_HOME", None)
    else:
        os.environ["IR_DATASETS_HOME"] = saved


@pytest.fixture(scope="session", autouse=True)
def pytrec_eval_inputs_it_can_read():
    """Every in-process pytrec_eval evaluation in the suite (the tests' own and
    ir_measures') is refused when a query of the run has no judgment >= 0 in the qrels.

    trec_eval 9.0.8's form_res_rels.c (pytrec_eval's C code) leaves ``num_rel_levels``
    at the previous query's value for such a query, and m_ndcg.c then reads that many
    counts from a buffer it did not fill: heap garbage, a loop of billions of steps that
    held a whole CI run to its time limit, depending on what ran before in the process.
    searcheval's own pytrec engine runs it in a child process and emulates such queries;
    a test must keep them away from its in-process reference."""
    import pytrec_eval

    real = pytrec_eval.RelevanceEvaluator

    class Guarded:
        def __init__(self, qrels, *args, **kwargs):
            self._qrels = qrels
            self._real = real(qrels, *args, **kwargs)

        def evaluate(self, run):
            unreadable = [q for q in run if q in self._qrels
                          and not any(grade >= 0 for grade in self._qrels[q].values())]
            if unreadable:
                raise AssertionError(
                    f"pytrec_eval reads uninitialised memory for queries of the run with no "
                    f"judgment >= 0 (trec_eval 9.0.8's form_res_rels): {unreadable[:5]}")
            return self._real.evaluate(run)

        def __getattr__(self, name):
            return getattr(self._real, name)

    pytrec_eval.RelevanceEvaluator = Guarded
    yield
    pytrec_eval.RelevanceEvaluator = real


@pytest.fixture(scope="session")
def cranfield_graded(tmp_path_factory) -> Path:
    """Cranfield's own grades (-1..4) in TREC's four columns."""
    path = tmp_path_factory.mktemp("cranfield") / "qrels"
    lines = (FIXTURES / "cranfield" / "cranqrel").read_text().split("\n")
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in (ln.split() for ln in lines
                                                                if ln.strip())))
    return path
