"""A bad option value, a missing argument or an unknown option is one line on stderr,
``searcheval COMMAND: error: ...`` naming the option and the value, exit 2, no usage
block (click printed four lines: Usage, Try ..., a blank line, Error). --help and the
bare program still show their help."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from click.testing import CliRunner, Result

from searcheval.cli import main

ROOT = Path(__file__).resolve().parent.parent
Q, R = ROOT / "fixtures" / "seeds" / "library.qrels", ROOT / "fixtures" / "seeds" / "library.run"



def cli(*arguments) -> Result:
    """The command line as the program names itself (click's runner says ``main``)."""
    return CliRunner().invoke(main, [str(a) for a in arguments], prog_name="searcheval")


BAD_VALUES = [
    (["evaluate", Q, R, "-l", "abc"],
     "searcheval evaluate: error: Invalid value for '-l' / '--relevance-level': 'abc' is not "
     "a valid integer."),
    (["evaluate", Q, R, "--ci", "--ci-level", "1.5"],
     "searcheval evaluate: error: Invalid value for '--ci-level': 1.5 is not in the range "
     "0<x<1."),
    (["compare", Q, R, R, "--ci-level", "1.5"],
     "searcheval compare: error: Invalid value for '--ci-level': 1.5 is not in the range "
     "0<x<1."),
    (["evaluate", Q, R, "--compat", "11"],
     "searcheval evaluate: error: Invalid value for '--compat': '11' is not one of '9', '10'."),
    (["overlap", R, R, "-p", "1.5"],
     "searcheval overlap: error: Invalid value for '-p': 1.5 is not in the range 0<x<1."),
    (["pool", R, "--depth", "0"],
     "searcheval pool: error: Invalid value for '--depth': 0 is not in the range x>=1."),
]
MISSING_OR_UNKNOWN = [
    (["evaluate", Q],
     "searcheval evaluate: error: Missing argument 'RUN...'. See 'searcheval evaluate --help'."),
    (["fuse", R],
     "searcheval fuse: error: Missing option '--method'. See 'searcheval fuse --help'."),
    (["evaluate", Q, R, "--bogus"],
     "searcheval evaluate: error: No such option '--bogus'. (Did you mean one of: '--groups', "
     "'--verbose'?) See 'searcheval evaluate --help'."),
    (["evaluat"],
     "searcheval: error: No such command 'evaluat'. Did you mean 'evaluate'? See "
     "'searcheval --help'."),
]


@pytest.mark.parametrize("arguments,line", BAD_VALUES + MISSING_OR_UNKNOWN)
def test_a_usage_error_is_one_line(arguments, line):
    result = cli(*arguments)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", line + "\n")


def test_the_program_prints_the_same_one_line():
    """``python -m searcheval`` (the console script's run()), not only click's test runner."""
    arguments, line = BAD_VALUES[0]
    done = subprocess.run([sys.executable, "-m", "searcheval", *map(str, arguments)],
                          capture_output=True, text=True, cwd=ROOT)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", line + "\n")


def test_help_is_still_the_help():
    result = cli("evaluate", "--help")
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage: searcheval evaluate [OPTIONS] QRELS RUN...\n")
    bare = cli()
    assert bare.exit_code == 2 and "Commands:" in bare.output  # the bare program: its help
