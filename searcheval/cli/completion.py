"""What the shell completes for an argument or option that names a file or a folder.

Click's completion protocol (``_SEARCHEVAL_COMPLETE=bash_complete``, ``zsh_complete``,
``fish_complete``) answers each word with typed items; an item of type ``file`` or
``dir`` makes click's shell script hand the word to the shell's own file-name (or
folder-name) completion. A parameter that is plain text answers nothing, and the script
that the README's start-up line installs (``complete -F``, no default) then offers no
file at all: so every parameter that names a file or folder says so here. The values
stay text (``-``, ``irds:ID``, ``NAME=PATH`` and globs are read later, by the command).
"""

from __future__ import annotations

import click


def files(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    """The shell lists the files (and folders) that start with ``incomplete``."""
    from click.shell_completion import CompletionItem  # only when completing

    return [CompletionItem(incomplete, type="file")]


def folders(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    """The shell lists the folders that start with ``incomplete``."""
    from click.shell_completion import CompletionItem

    return [CompletionItem(incomplete, type="dir")]
