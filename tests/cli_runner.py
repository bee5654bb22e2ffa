"""The CLI run in-process, as the tests call it: arguments may be paths or numbers."""

from __future__ import annotations

from click.testing import CliRunner, Result

from searcheval.cli import main


def cli(*arguments, input=None) -> Result:
    return CliRunner().invoke(main, [str(a) for a in arguments], input=input)
