"""One vocabulary across commands: a flag means the same thing wherever it appears
(README, "One vocabulary"). Old spellings keep working for one release: each command
lists its renamed flags, and ``VocabularyCommand.parse_args`` rewrites them to the new
spelling before click parses, with one line on stderr."""

from __future__ import annotations

import click

from ..errors import UsageError


class VocabularyCommand(click.Command):
    """A click command with ``renamed = {old flag: new flag}``: the old flags still work,
    each with a deprecation note. The old flags are not in the help (they are retired)."""

    renamed: dict[str, str] = {}

    def __init__(self, *args, renamed: dict[str, str] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.renamed = dict(renamed or {})

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, self.rewritten(ctx, args))

    def rewritten(self, ctx: click.Context, args: list[str]) -> list[str]:
        """The arguments click is to parse; a refusal is one line, exit 2 (completion,
        which parses half-typed lines, gets them as they are)."""
        try:
            return renamed_flags(args, self.renamed, note=not ctx.resilient_parsing)
        except UsageError as exc:
            if ctx.resilient_parsing:
                return args
            click.echo(str(exc), err=True)
            ctx.exit(2)


def renamed_flags(args: list[str], renamed: dict[str, str], note: bool = True) -> list[str]:
    """``args`` with each old flag (``-k 5``, ``-k5``, ``--old=5``) in its new spelling."""
    out: list[str] = []
    told: set[str] = set()
    given = {token.partition("=")[0] for token in args}
    for old, new in renamed.items():
        if old in given and new in given:  # which one is meant? the later would win silently
            raise UsageError(f"give {new} only ({old} is its old spelling)")
    for i, token in enumerate(args):
        if token == "--":
            return out + args[i:]
        old, value = _flag_of(token, renamed)
        if old is None:
            out.append(token)
            continue
        if note and old not in told:
            click.echo(f"searcheval: {old} is deprecated, use {renamed[old]}", err=True)
            told.add(old)
        out.append(renamed[old] if value is None else f"{renamed[old]}={value}")
    return out


def _flag_of(token: str, renamed: dict[str, str]) -> tuple[str | None, str | None]:
    """(the old flag a token spells, the value attached to it or None)."""
    if token in renamed:
        return token, None
    flag, equals, value = token.partition("=")
    if equals and flag.startswith("--") and flag in renamed:
        return flag, value
    for old in renamed:  # a short flag with its value attached: -k5
        if len(old) == 2 and old[0] == "-" and old[1] != "-" and token.startswith(old) \
                and len(token) > 2 and not token.startswith("--"):
            return old, token[2:]
    return None, None
