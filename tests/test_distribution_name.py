"""The distribution is ``searcheval-trec``: every install hint must name it.

An unrelated distribution called ``searcheval`` is on the package index and owns the same
import name, so a hint such as ``pip install "searcheval[xlsx]"`` would install the wrong
package. The import name, the folder and the command stay ``searcheval``."""

import configparser
import re
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parent.parent
TEXT_SUFFIXES = {".py", ".md", ".cfg", ".toml", ".txt", ".yml", ".yaml", ".ipynb", ".html", ".js", ""}

# An extras spec of the package (``searcheval[xlsx]``) or a bare install of it
# (``pip install searcheval``), where the name is not followed by ``-trec``.
WRONG_NAME = re.compile(r"""searcheval(?!-trec)\[|pip\s+install\s+(?:-\S+\s+)*["']?searcheval(?![-\w.])""")


def shipped_texts() -> list[Path]:
    roots = [TOP / "searcheval", TOP / "scripts", TOP / "docs"]
    files = [TOP / name for name in ("README.md", "CHANGELOG.md", "setup.cfg", "pyproject.toml")]
    for root in roots:
        files += [path for path in root.rglob("*") if path.is_file()]
    return [path for path in files if path.is_file() and path.suffix in TEXT_SUFFIXES]


def test_the_distribution_name_is_searcheval_trec():
    config = configparser.ConfigParser()
    config.read(TOP / "setup.cfg")
    assert config["metadata"]["name"] == "searcheval-trec"
    assert config["options.entry_points"]["console_scripts"].strip() == (
        "searcheval = searcheval.__main__:program")


@pytest.mark.parametrize("text, wrong", [
    ("pip install \"searcheval[xlsx]\"", True),
    ("pip install 'searcheval[irds]' (or pip install ir_datasets)", True),
    ("pip install searcheval", True),
    ("pip install -U searcheval\n", True),
    ("pip install \"searcheval-trec[xlsx]\"", False),
    ("pip install searcheval-trec", False),
    ("pip install -e \".[test]\"", False),
    ("pip uninstall searcheval", False),
])
def test_the_check_tells_a_wrong_hint(text, wrong):
    assert bool(WRONG_NAME.search(text)) is wrong


def test_no_install_hint_names_another_distribution():
    found = []
    for path in shipped_texts():
        text = path.read_text(encoding="utf-8", errors="replace")
        # a hint split over two string literals reads as one
        joined = re.sub(r"""["']\s*\n\s*["']""", "", text)
        found += [f"{path.relative_to(TOP)}: {match.group(0)}" for match in WRONG_NAME.finditer(joined)]
    assert found == []


def test_the_readme_installs_this_distribution_and_warns_of_the_other():
    readme = (TOP / "README.md").read_text(encoding="utf-8")
    assert 'pip install "searcheval-trec' in readme or "pip install searcheval-trec" in readme
    assert "pip uninstall searcheval" in readme
