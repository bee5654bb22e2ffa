"""``searcheval fuse RUN... -o OUT --method M``: the command; the fusion is
``analysis.fusion``. Every run is read and fused before anything is written."""

from __future__ import annotations

import click

CONTEXT = {"help_option_names": ["-h", "--help"]}
_METHODS = ("rrf, sum, mnz, anz, max, min, med, gmnz, isr, log_isr, logn_isr, bordafuse, "
            "w_bordafuse, condorcet, w_condorcet, rbc, mixed, wsum, wmnz")
_NORMS = "none, min-max, max, sum, zmuv (z-score), rank, borda, min-max-inverted"


@click.command("fuse", context_settings=CONTEXT)
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("-o", "--output", required=True, help="The fused run (TREC); '-' for stdout.")
@click.option("--method", required=True, help=f"ranx's name: {_METHODS} (CombSUM, CombMNZ, "
                                              "... accepted).")
@click.option("--norm", default="min-max", show_default=True,
              help=f"Score normalisation per run and query: {_NORMS}.")
@click.option("--weights", "weights", multiple=True, metavar="W",
              help="One weight per run, in order, for wsum, wmnz, mixed, w_bordafuse, "
                   "w_condorcet: --weights 0.7,0.3 or --weights 0.7 --weights 0.3.")
@click.option("--k", "k", type=float, default=None, help="RRF's k (default 60).")
@click.option("--phi", type=float, default=None, help="RBC's persistence phi, in (0, 1).")
@click.option("--gamma", type=float, default=None, help="gmnz's exponent gamma.")
@click.option("--sigma", type=float, default=None, help="logn_isr's sigma (default 0.01).")
def fuse_command(runs, output, method, norm, weights, k, phi, gamma, sigma) -> None:
    """Fuse RUN(s) into one TREC run, with ranx's methods and normalisations.

    A query missing from some runs is fused from the runs that have it; the summary says
    how many there were. The output is in trec_eval's order, scores at full precision,
    the method and its parameters in the tag and in a '#' header line.
    """
    from . import run_reporting
    run_reporting(lambda: _fuse(list(runs), output, method, norm, weights, k, phi, gamma,
                                sigma), output)


def _fuse(runs, output, method, norm, weights, k, phi, gamma, sigma) -> list[str]:
    from ..analysis.fusion import fuse
    from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
    from .output import write_text

    refuse_inputs_as_outputs([output], runs)
    refuse_stdin_twice(runs)
    fusion = fuse(runs, method, norm, _weights(weights), k=k, phi=phi, gamma=gamma,
                  sigma=sigma)
    write_text(output, fusion.text().decode("utf-8"))
    return [_summary(fusion, output)]


def _weights(given: tuple[str, ...]) -> list[float] | None:
    from ..errors import UsageError

    if not given:
        return None
    texts = [part.strip() for value in given for part in value.split(",")]
    try:
        return [float(text) for text in texts]
    except ValueError:
        raise UsageError(f"--weights: expected numbers (0.7,0.3), found {','.join(texts)!r}"
                         ) from None


def _summary(fusion, output: str) -> str:
    queries = len(fusion.run.query.vocabulary)
    line = (f"fused {len(fusion.labels)} runs by {fusion.method} (norm {fusion.norm}): "
            f"{queries} queries, {len(fusion.run.scores)} documents")
    partial = fusion.partial_queries
    if partial:
        shown = ", ".join(partial[:10]) + (", ..." if len(partial) > 10 else "")
        line += (f"; {len(partial)} queries missing from some runs, fused from the runs "
                 f"that have them ({shown})")
    else:
        line += "; every query is in every run"
    return line + ("" if output == "-" else f"; written to {output}")
