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
