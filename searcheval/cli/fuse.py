"""``searcheval fuse RUN... -o OUT --method M``: the command; the fusion is
``analysis.fusion``. Every run is read and fused before anything is written."""

from __future__ import annotations

import click

from ..errors import quoted
from ..model.words import counted
from .completion import files
from .options import measures_from_option
from .run_args import RunsCommand, name_option

CONTEXT = {"help_option_names": ["-h", "--help"]}
_METHODS = ("rrf, sum, mnz, anz, max, min, med, gmnz, isr, log_isr, logn_isr, bordafuse, "
            "w_bordafuse, condorcet, w_condorcet, rbc, mixed, wsum, wmnz")
_NORMS = "none, min-max, max, sum, zmuv (z-score), rank, borda, min-max-inverted"


@click.command("fuse", cls=RunsCommand, context_settings=CONTEXT,
               renamed={"--metric": "--measure"})
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", shell_complete=files)
@name_option
@click.option("-o", "--output",
              shell_complete=files, default="-", show_default=True, metavar="FILE",
              help="The fused run (TREC); '-' for stdout.")
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
@click.option("--optimize", "optimize", is_flag=True,
              help="Choose the weights (or k, phi, gamma, sigma) on --train-qrels over "
                   "ranx's grid, then fuse with them.")
@click.option("--train-qrels", shell_complete=files, default=None, metavar="QRELS",
              help="The judgments --optimize scores the candidates with.")
@click.option("--folds", type=click.IntRange(min=2), default=None, metavar="K",
              help="With --optimize: also the K-fold held-out score (each fold scored with "
                   "the parameters chosen on the others).")
@click.option("-m", "--measure", "metric", default="nDCG", show_default=True,
              help="The measure --optimize maximises (any evaluate measure name; --metric "
                   "before: deprecated).")
@measures_from_option
@click.option("--header/--no-header", default=True, show_default=True,
              help="Begin the fused run with a '#' line naming the method, its parameters "
                   "and the runs. searcheval and trec_eval read it (9.0.8 as a result of a "
                   "query '#', in no qrels); ir_measures, ranx and trectools refuse it: "
                   "--no-header for them.")
def fuse_command(runs, output, method, norm, weights, k, phi, gamma, sigma, optimize,
                 train_qrels, folds, metric, header) -> None:
    """Fuse RUN(s) into one TREC run, with ranx's methods and normalisations.

    A query missing from some runs is fused from the runs that have it; the summary says
    how many there were. The output is in trec_eval's order, scores at full precision,
    the method and its parameters in the tag and in a '#' header line (--no-header: none).
    """
    from . import _fail, run_reporting
    if (train_qrels or folds) and not optimize:
        _fail("searcheval: --train-qrels and --folds go with --optimize")
    if optimize and not train_qrels:
        _fail("searcheval: --optimize needs --train-qrels QRELS (the judgments to score with)")
    if optimize and (weights or any(v is not None for v in (k, phi, gamma, sigma))):
        _fail("searcheval: --optimize chooses the parameters: give no --weights, --k, --phi, "
              "--gamma or --sigma with it")
    given = dict(k=k, phi=phi, gamma=gamma, sigma=sigma)
    tuning = (train_qrels, folds, metric) if optimize else None
    run_reporting(lambda: _fuse(runs, output, method, norm, weights, given, tuning, header),
                  output)


def _fuse(runs, output, method, norm, weights, given, tuning, header) -> list[str]:
    from ..analysis.fusion import fuse
    from ..io.inputs import as_run
    from ..io.run_labels import run_labels
    from .run_args import paths_and_names
    runs, names = paths_and_names(runs)
    from ..io.output import refuse_inputs_as_outputs, refuse_stdin_twice
    from .output import write_text

    refuse_inputs_as_outputs([output], [*runs, tuning and tuning[0]])
    refuse_stdin_twice([*runs, tuning and tuning[0]])
    report = []
    if tuning:
        from ..analysis.fusion_optimize import optimise
        chosen = optimise(runs, tuning[0], method, norm, tuning[2], tuning[1])
        report = chosen.lines()
        weights, given = chosen.weights, chosen.params
    else:
        weights = _weights(weights)
    if any(names):  # NAME=PATH: the fused run's header and tag name the runs so
        read = [as_run(path) for path in runs]
        fusion = fuse(read, method, norm, weights, labels=run_labels(read, names), **given)
    else:
        fusion = fuse(runs, method, norm, weights, **given)
    write_text(output, fusion.text(header).decode("utf-8"))
    return [*report, _summary(fusion, output)]


def _weights(given: tuple[str, ...]) -> list[float] | None:
    from ..errors import UsageError

    if not given:
        return None
    texts = [part.strip() for value in given for part in value.split(",")]
    try:
        return [float(text) for text in texts]
    except ValueError:
        raise UsageError(f"--weights: expected numbers (0.7,0.3), found {quoted(','.join(texts))}"
                         ) from None


def _summary(fusion, output: str) -> str:
    queries = len(fusion.run.query.vocabulary)
    line = (f"fused {counted(len(fusion.labels), 'run')} by {fusion.method} (norm "
            f"{fusion.norm}): {counted(queries, 'query')}, "
            f"{counted(len(fusion.run.scores), 'document')}")
    partial = fusion.partial_queries
    if partial:
        shown = ", ".join(partial[:10]) + (", ..." if len(partial) > 10 else "")
        line += (f"; {counted(len(partial), 'query')} missing from some runs, fused from the runs "
                 f"that have them ({shown})")
    else:
        line += "; every query is in every run"
    # ranx ranks by Python floats; --compat is evaluate's choice, fusion reads the doubles
    line += "; each run ranked by its scores as 64-bit floats (as ranx, and trec_eval 10.0)"
    return line + ("" if output == "-" else f"; written to {output}")
