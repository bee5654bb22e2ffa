"""Many runs against one qrels: per-run outputs that a rerun can trust (the leaderboard
over them: ``scale.leaderboard``).

Each run gets ``runs/NAME.csv`` (long per-query table), ``runs/NAME.json`` and, written
last, ``runs/NAME.done``: the hash of everything its numbers depend on (the run's bytes,
the qrels' bytes, the measures, every option that changes a number, searcheval's version
and the bytes of its code) and the hashes of the two outputs. A rerun skips a run whose
stamp matches and whose outputs are intact, and recomputes anything else; a run's
outputs left under an older label are removed (``batch_checks.remove_relabelled``). Every
file is written to a temporary name and renamed, so a killed batch leaves whole files or
none, never half of one.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..settings import __version__
from ..report import render
from ..settings import Settings
from ..errors import SearchevalError, UsageError
from ..model import Qrels
from ..measures import Measure, parse_measures
from ..io.output import write_file
from ..engine.configure import Configuration
from ..pipeline import evaluated, labelled, reads_runs_whole
from ..results import Results
from ..model import natural_key
from ..io.run_labels import same_file_key
from . import batch_spread
from .fingerprints import code_sha256, file_sha256, sha256_text
from .worker_qrels import qrels_reads, worker_qrels

STREAM_ABOVE = 1 << 30  # runs larger than this are streamed unless told otherwise


@dataclass(frozen=True)
class Job:
    """What every run of a batch is evaluated with (all but the qrels themselves)."""

    qrels: str
    qrels_sha256: str
    measures: tuple[str, ...]  # canonical names
    settings: Settings
    stream: bool | None = None  # None: stream the runs larger than STREAM_ABOVE
    chunk_queries: int | None = None  # streaming blocks of at most this many queries
    block_bytes: int = 32 << 20
    qrels_form: str = "trec"  # -R: the kind of judgments (model.forms)
    interval: Any = None  # --ci: analysis.mean_spread.Interval (batch_spread)
    runid: bool = False  # -m runid: the leaderboard names each run's tag (trec_eval's runid)
    like: str | None = None  # --like TOOL (engine.presets): the settings above are its
    equal_queries: bool = False  # --like ranx without -c/--missing: unequal queries refused
    notes: tuple[str, ...] = ()  # the configuration's (--like's note)
    # Each measure's parameter text as typed (Measure.trec_label), which its canonical name
    # drops: trec_eval 10.0 zeroes a missing query's ``utility`` but keeps the placeholder's
    # value for ``utility.1,-1,0,0`` (engine.missing), so the measures must keep it.
    trec_labels: tuple[str | None, ...] = ()

    def parsed_measures(self) -> list[Measure]:
        """The measures exactly as the command line gave them (``evaluate``'s)."""
        return list(_parsed(tuple(self.measures), self.settings.compat, self.trec_labels))

    def configuration(self) -> Configuration:
        """What each run is evaluated with, as ``evaluate`` has it."""
        return Configuration(self.settings, tuple(self.parsed_measures()), self.notes,
                             self.like, self.equal_queries)

    def key(self, run_sha256: str) -> str:
        """Hash of everything a number depends on (how a run is read changes none)."""
        facts = {"searcheval": __version__, "code": code_sha256(),
                 "qrels_sha256": self.qrels_sha256,
                 "run_sha256": run_sha256, "measures": list(self.measures),
                 "settings": settings_facts(self.settings, with_path=False)}
        if self.qrels_form != "trec":  # the same file read as another form: other numbers
            facts["qrels_form"] = self.qrels_form
        facts.update(batch_spread.key_facts(self))
        if self.like is not None:  # ranx's query check: a refusal where others evaluate
            facts["peer"] = [self.like, self.equal_queries]
        if any(self.trec_labels):  # utility vs utility.1,-1,0,0: other numbers under -C 10
            facts["trec_labels"] = list(self.trec_labels)
        return sha256_text(json.dumps(facts, sort_keys=True))

    def streams(self, path: str) -> bool:
        """Stream this run? Only TREC text streams (a block cutter needs lines); the other
        formats are read whole, as ``evaluate`` reads them."""
        if self.chunk_queries is not None or self.stream:
            if path != "-" and not trec_text(path):
                raise UsageError(f"{path}: --stream and --chunk-queries read TREC run text, "
                                 "and this run is in another format: leave them out")
            return True
        if self.stream is not None:
            return False
        return path != "-" and os.path.getsize(path) > STREAM_ABOVE and trec_text(path)


@functools.lru_cache(maxsize=64)
def _parsed(measures: tuple[str, ...], compat: int, trec_labels: tuple[str | None, ...]
            ) -> tuple[Measure, ...]:
    """``parse_measures`` once per batch, not once per run (trec_eval's official set is
    many names): Measures are frozen, so every run may share them."""
    parsed = parse_measures(list(measures), compat)
    if trec_labels:
        parsed = [replace(m, trec_label=label) for m, label in zip(parsed, trec_labels,
                                                                   strict=True)]
    return tuple(parsed)


@dataclass
class Outcome:
    """What became of one run: evaluated, up to date (skipped) or failed."""

    path: str
    name: str
    status: str
    lines: int = 0
    queries: int = 0
    summary: dict[str, float] = field(default_factory=dict)
    error: str = ""
    results: Results | None = None  # when the caller writes the outputs (Dask)
    stamp: dict | None = None
    pid: int = 0
    qrels_reads: int = 0  # how many times this process has parsed the qrels
    rss: int = 0  # this process's resident memory after the run, bytes
    spread: dict | None = None  # --ci: measure -> [std, ci_low, ci_high] (batch_spread)
    tag: str = ""  # the run's tag (trec_eval's runid: the last line's)


def trec_text(path: str) -> bool:
    """Is this run TREC text (plain or gzipped), as the format recognition reads it?"""
    from ..io.registry import recognised
    return recognised(path, "run").name == "trec-run"


# ---- which runs --------------------------------------------------------------------------

def expand_runs(arguments: list[str], outdir: str | None = None) -> list[str]:
    """Files as given; a directory's files (not hidden, natural order); a glob's matches.
    A directory or glob leaves out batch's own outputs in ``outdir`` (``-o`` the runs'
    folder: a rerun read summary.csv and summary.json as runs, failed them, exit 1), and
    those of any folder a batch wrote into (``written_by_batch``: every command expands a
    folder this way, so the folder batch -o wrote into reads as runs for evaluate too).
    A directory that leaves no file, or a glob that matches none, is a UsageError."""
    paths: list[str] = []
    given = _own_outputs(outdir)
    written = written_by_batch()

    def ours(path: str) -> bool:
        return given(path) or written(path)

    for argument in arguments:
        if os.path.isdir(argument):
            try:
                files = [str(p) for p in Path(argument).iterdir()
                         if p.is_file() and not p.name.startswith(".")]
            except OSError as exc:  # a folder that cannot be listed (its read bit is off)
                raise UsageError(f"{argument}: cannot read the folder: "
                                 f"{exc.strerror or exc}") from None
            found = [p for p in files if not ours(p)]
            if not found:  # else evaluate printed [] or a bare header, and batch "succeeded"
                outputs = outdir is not None or len(files) > 0  # what left them out
                left_out = "files named '.*'" + (" and batch's own outputs" if outputs else "")
                raise UsageError(f"{argument}: the folder holds no run file ({left_out} "
                                 "are left out)")
        elif os.path.exists(argument):
            found = [argument]
        else:
            found = [p for p in glob.glob(argument, recursive=True)
                     if os.path.isfile(p) and not ours(p)]
            if not found:
                raise UsageError(f"{argument}: no such run file, directory or matching file")
        paths.extend(sorted(found, key=natural_key) if len(found) > 1 else found)
    # Directories and globs may overlap: a file met twice (however spelled) is one run.
    first = {}
    for path in paths:
        first.setdefault(same_file_key(path), path)
    return list(first.values())


def written_by_batch() -> Callable[[str], bool]:
    """Whether a path is a file a batch wrote (FOLDER/summary.csv or .json, FOLDER/runs/*)
    into a FOLDER it evaluated: FOLDER/runs holds its ``.done`` stamps (``Outputs``), so
    a run file that happens to be called summary.csv elsewhere is still read."""
    stamped: dict[str, bool] = {}

    def holds_stamps(folder: str) -> bool:
        if folder not in stamped:
            stamped[folder] = any(glob.iglob(os.path.join(glob.escape(folder), "runs", "*.done")))
        return stamped[folder]

    def written(path: str) -> bool:
        real = Path(os.path.realpath(path))
        if real.name in ("summary.csv", "summary.json") and holds_stamps(str(real.parent)):
            return True
        return real.parent.name == "runs" and holds_stamps(str(real.parent.parent))
    return written


def _own_outputs(outdir: str | None) -> Callable[[str], bool]:
    """Whether a path is one of the files batch writes into ``outdir``."""
    if outdir is None:
        return lambda path: False
    folder = os.path.realpath(outdir)
    summaries = {os.path.join(folder, "summary.csv"), os.path.join(folder, "summary.json")}
    runs = os.path.join(folder, "runs") + os.sep
    return lambda path: (os.path.realpath(path) in summaries
                         or os.path.realpath(path).startswith(runs))


# ---- one run -----------------------------------------------------------------------------

_KEPT_IN_NAMES = frozenset("._-+=,@#~()[] ")
_LONGEST_NAME = 200  # bytes, leaving room for .json, .done and the temporary files' marks


def output_name(label: str) -> str:
    """The file name of a run's outputs: its label, with ``/`` (labels such as
    ``exp1/run.txt`` tell apart runs of one file name) written ``%2F`` and ``%`` written
    ``%25``, so that two labels never share a file name and every file stays in runs/.
    A name given on the command line (``NAME=PATH``) may hold anything: what a file system
    refuses or hides (``\\ : * ? " < > |``, control characters, a leading dot: ``..``) is
    written %XX too, byte by byte in UTF-8."""
    out = []
    for i, char in enumerate(label):
        if (char.isalnum() or char in _KEPT_IN_NAMES) and not (i == 0 and char == "."):
            out.append(char)
        else:
            out.append("".join(f"%{byte:02X}" for byte in char.encode("utf-8")))
    name = "".join(out)
    if len(name.encode("utf-8")) > _LONGEST_NAME:  # file systems stop at 255 bytes
        digest = hashlib.sha256(label.encode("utf-8")).hexdigest()[:16]
        name = name.encode("utf-8")[:_LONGEST_NAME - 17].decode("utf-8", "ignore") + "~" + digest
    return name


class Outputs:
    """The files of one run in OUTDIR/runs, named after the run's label (``output_name``)."""

    def __init__(self, outdir: str | Path, label: str) -> None:
        folder, name = Path(outdir) / "runs", output_name(label)
        self.csv, self.json = folder / f"{name}.csv", folder / f"{name}.json"
        self.stamp = folder / f"{name}.done"

    def intact(self) -> dict | None:
        """The stamp, if there is one and both outputs are whole and unchanged since."""
        try:
            stamp = json.loads(self.stamp.read_text(encoding="utf-8"))
            for path in (self.csv, self.json):
                if file_sha256(path) != stamp["outputs"][path.name]:
                    return None
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return stamp

    def write(self, results: Results, stamp: dict) -> None:
        texts = {self.csv: render.to_csv([results]), self.json: render.to_json([results])}
        for path, text in texts.items():
            write_file(path, text)
        stamp["outputs"] = {path.name: sha256_text(text) for path, text in texts.items()}
        write_file(self.stamp, json.dumps(stamp, indent=2) + "\n")  # last: "complete"

    def remove(self) -> None:
        for path in (self.stamp, self.csv, self.json):
            path.unlink(missing_ok=True)


def settings_facts(settings: Settings, with_path: bool = True) -> dict:
    """The settings as a stamp holds them: the --costs file as the hash of its costs (a
    cost edited re-evaluates every run; the same costs at another path change no number,
    so the job's key leaves the path out), not every document's cost written out."""
    facts = asdict(replace(settings, costs=None))
    if not facts["allow_empty"]:  # left out unless given: the stamps made before it stay valid
        del facts["allow_empty"]
    costs = settings.costs
    if costs is not None:
        facts["costs"] = {"sha256": costs.sha256,
                          **({"path": costs.path} if with_path else {})}
    return facts


def file_identity(path: str) -> str:
    """What names one run file however it is spelled (``same_file_key``), from any folder."""
    return os.path.realpath(same_file_key(str(path)))


def stamp_for(job: Job, path: str, run_sha256: str, results: Results, lines: int) -> dict:
    """The stamp of a run's outputs; under --ci the Results get their spread here first
    (every path that evaluates a run stamps it before writing its outputs)."""
    batch_spread.add_if_asked(job, results)
    spread = batch_spread.stamp_spread(results)
    return {"key": job.key(run_sha256), **({"spread": spread} if spread is not None else {}), "searcheval": __version__, "code": code_sha256(),
            "run": path,
            "run_file": file_identity(path),
            "run_sha256": run_sha256, "qrels": job.qrels, "qrels_sha256": job.qrels_sha256,
            "measures": list(job.measures), "settings": settings_facts(job.settings),
            "lines": lines,
            "queries": len(results.query_ids), "summary": results.summary(),
            "run_tag": results.run_tag}


def evaluate_run(qrels: Qrels, path: str, job: Job) -> tuple[Results, int]:
    """(Results, records read) of one run, streamed or in memory."""
    config = job.configuration()
    whole = reads_runs_whole(config)
    asked = job.stream or job.chunk_queries is not None  # not the automatic choice
    streams = job.streams(path)
    if streams and (asked or not whole):
        if whole:
            raise UsageError(f"{path}: --ignore-identical-ids, --like ranx and --like beir read "
                             "a run whole: not with --stream or --chunk-queries")
        from .stream import stream_evaluate
        results, records = stream_evaluate(qrels, path, list(config.measures), job.settings,
                                           job.chunk_queries, job.block_bytes)
        return labelled(config, results, None), records
    from ..io.inputs import as_run
    run = as_run(path, ranks=job.settings.ties == "rank")  # every format evaluate reads
    records = len(run.scores)
    results = evaluated(config, qrels, run)
    if streams:  # the automatic choice, given up for an option that needs the whole run
        results.notes.append(f"read whole, not streamed although larger than "
                             f"{STREAM_ABOVE >> 30} GiB: --ignore-identical-ids, --like "
                             "ranx and --like beir read every query of a run at once")
    return results, records


def process(path: str, job: Job, outdir: str, stamp: dict | None, qrels: Qrels | None = None,
            write: bool = True, label: str | None = None) -> Outcome:
    """Make the outputs of one run current; never raises for a bad run (it is reported).

    ``stamp``: the run's intact stamp from an earlier batch (``Outputs.intact``), if any.
    ``write=False`` leaves the writing to the caller (``Outcome.results``, ``.stamp``).
    ``label``: what the outputs call the run (``run_labels.path_labels``; default: its
    file name)."""
    name = label or Path(path).name
    try:
        run_sha256 = file_sha256(path)
    except OSError as exc:
        return _failed(path, name, f"{path}: cannot read the file: {exc.strerror or exc}")
    if stamp is not None and stamp.get("key") == job.key(run_sha256):
        return _finish(Outcome(path, name, "up to date", stamp["lines"], stamp["queries"],
                               stamp["summary"], spread=stamp.get("spread"),
                               tag=stamp.get("run_tag", "")))
    try:
        results, lines = evaluate_run(qrels or worker_qrels(), path, job)
        results.run = name
    except SearchevalError as exc:
        if write:
            Outputs(outdir, name).remove()  # outputs of an older version would mislead
        return _failed(path, name, str(exc))
    outcome = Outcome(path, name, "evaluated", lines, len(results.query_ids), results.summary(),
                      stamp=stamp_for(job, path, run_sha256, results, lines),
                      tag=results.run_tag)
    outcome.spread = outcome.stamp.get("spread")
    if write:
        Outputs(outdir, name).write(results, outcome.stamp)
    else:
        outcome.results = results
    return _finish(outcome)


def _failed(path: str, name: str, error: str) -> Outcome:
    return _finish(Outcome(path, name, "failed", error=error))


def _finish(outcome: Outcome) -> Outcome:
    outcome.pid, outcome.qrels_reads, outcome.rss = os.getpid(), qrels_reads(), _rss()
    return outcome


def _rss() -> int:
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
