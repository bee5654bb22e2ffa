"""The whole command line for the documentation's generated reference (mkdocs-click reads
``program``): the group with every command loaded, where the program itself imports each
command on first use."""

from __future__ import annotations

import click

from . import main


def _loaded(group: click.Group) -> click.Group:
    context = click.Context(group)
    for name in group.list_commands(context):
        group.get_command(context, name)
    return group


program = _loaded(main)
