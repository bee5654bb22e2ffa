"""Batches on a Dask cluster (``pip install "searcheval-trec[dask]"``).

Runs smaller than one block are tasks, each evaluated by a worker with the qrels sent to
every worker once. A larger run becomes a ``dask.dataframe``: byte ranges cut at line
ends (``pieces.piece_bounds``, the cutter streaming and the whole-file readers share),
each parsed by the same reader as a whole file (physical line numbers kept), then
shuffled by query id so that each partition holds whole queries; every partition is
evaluated with the native engine and the partitions' per-query values are combined
exactly (``blocks.combine``). The workers read the run files themselves, so the paths
must mean the same file on the client and on every worker (a shared filesystem).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .batch import Job, Outcome, Outputs, file_sha256, process, stamp_for, trec_text
from .blocks import Part, Plan, combine, evaluate_block
from ..settings import Settings
from ..errors import SearchevalError, UsageError, WorkersLost
from ..io.bounded import FileBytes, compression, file_state, refuse_changed
from ..io.pieces import line_count, piece_bounds
from ..engine.reading_notes import bom_note
from ..io.trec import BOM
from ..io.trec_grammar import TREC_RUN
from ..model import Qrels, Run
from ..measures import Measure
from ..results import Results

INSTALL_HINT = 'Dask is not installed: pip install "searcheval-trec[dask]"'
DEFAULT_LOCAL_WORKERS = 2


def require_dask() -> None:
    """Stop with the install hint when dask.distributed is missing."""
    try:
        import distributed  # noqa: F401
        import dask.dataframe  # noqa: F401
    except ImportError:
        raise UsageError(INSTALL_HINT) from None


# The scheduler's HTTP server (its /health route) without a dashboard, on a free port: on
# dashboard's 8787, taken by any other Dask on the machine, distributed warns on stderr.
QUIET_SCHEDULER = {"dashboard": False, "dashboard_address": ":0"}


@contextmanager
def dask_client(address: str):
    """A ``distributed.Client`` for ``local[:N]`` (a LocalCluster of N processes) or the
    scheduler at ``address``; closed (and the local cluster stopped) on exit."""
    require_dask()
    from distributed import Client, LocalCluster
    if address == "local" or address.startswith("local:"):
        count = address.partition(":")[2]
        if count and not count.isdigit() or count == "0":
            raise UsageError(f"--dask {address}: expected local or local:N (N worker processes)")
        try:  # the scheduler's and workers' own logs are off: a lost worker is one line
            cluster = LocalCluster(n_workers=int(count or DEFAULT_LOCAL_WORKERS),
                                   threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.CRITICAL,
                                   scheduler_kwargs=QUIET_SCHEDULER)
        except Exception as exc:  # noqa: BLE001 - every way a cluster fails to start
            # (a worker killed as it starts: RuntimeError "Nanny failed to start.")
            raise WorkersLost(f"--dask {address}: the local cluster did not start "
                              f"({_reason(exc)})") from None
        with cluster:
            try:
                client = Client(cluster)
            except Exception as exc:  # noqa: BLE001 - its workers died as it connected
                raise WorkersLost(f"--dask {address}: the local cluster did not start "
                                  f"({_reason(exc)})") from None
            with client:
                yield client
        return
    try:
        client = Client(address, timeout="20s")
    except OSError as exc:
        raise UsageError(f"--dask {address}: cannot reach the scheduler ({exc})") from None
    with client:
        yield client


def run_on_dask(address: str, qrels: Qrels, paths: list[str], stamps: dict, outdir: str,
                job: Job, labels: dict[str, str] | None = None) -> Iterator[Outcome]:
    """``batch``'s outcomes, computed on the cluster and written here, as they complete.
    ``labels``: path -> what the outputs call the run (default: its file name)."""
    from distributed import as_completed

    with dask_client(address) as client, _cluster_losses():
        shared = client.scatter(qrels, broadcast=True)
        large = [p for p in paths if _splits(p, job)]
        label = labels or {p: Path(p).name for p in paths}
        small = [client.submit(process, p, job, outdir, stamps[p], shared, False, label[p],
                               pure=False) for p in paths if p not in large]
        for path in large:
            yield _written(_process_large(client, shared, qrels, path, job, stamps[path],
                                          label[path]), outdir)
        for future in as_completed(small):
            yield _written(future.result(), outdir)


@contextmanager
def _cluster_losses() -> Iterator[None]:
    """What distributed raises when the cluster loses workers or the connection, as one
    ``WorkersLost``: its own exceptions carry 50 to 80 lines of traceback."""
    from concurrent.futures import CancelledError
    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker
    try:
        yield
    except KilledWorker:  # a task whose workers died, each time it was tried
        raise WorkersLost("the Dask workers died while evaluating (a task's workers died "
                          "each time it was tried: distributed's KilledWorker)") from None
    except CancelledError:  # a worker died, and the data sent to it (the qrels) with it
        raise WorkersLost("a Dask worker died, and the tasks that needed its data were "
                          "cancelled") from None
    except CommClosedError as exc:
        raise WorkersLost(f"the connection to the Dask cluster was lost ({_reason(exc)})") from None
    except TimeoutError as exc:  # no worker left to take the qrels, or a scheduler gone
        raise WorkersLost(f"the Dask cluster did not answer in time ({_reason(exc)})") from None


def _reason(exc: BaseException) -> str:
    """An exception as a few words: its type, and its message's first line."""
    message = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {message[0]}" if message else type(exc).__name__


def _splits(path: str, job: Job) -> bool:
    """TREC runs larger than one block are split into partitions (a compressed file cannot
    be split; the other formats are read whole, as ``evaluate`` reads them)."""
    if job.stream is False or not os.path.isfile(path):
        return False
    with open(path, "rb") as handle:
        compressed = compression(handle.read(16)) is not None
    return not compressed and os.path.getsize(path) > job.block_bytes and trec_text(path)


def _written(outcome: Outcome, outdir: str) -> Outcome:
    outputs = Outputs(outdir, outcome.name)
    if outcome.status == "failed":
        outputs.remove()
    elif outcome.results is not None:
        outputs.write(outcome.results, outcome.stamp)
        outcome.results = None
    return outcome


def _process_large(client, shared, qrels: Qrels, path: str, job: Job, stamp: dict | None,
                   name: str) -> Outcome:
    run_sha256 = client.submit(file_sha256, path, pure=False).result()
    if stamp is not None and stamp.get("key") == job.key(run_sha256):
        return Outcome(path, name, "up to date", stamp["lines"], stamp["queries"], stamp["summary"],
                       spread=stamp.get("spread"), tag=stamp.get("run_tag", ""))
    try:
        results, records = evaluate_partitioned(client, qrels, path, job.parsed_measures(),
                                                job.settings, job.block_bytes, shared)
    except SearchevalError as exc:
        return Outcome(path, name, "failed", error=str(exc))
    results.run = name
    made = stamp_for(job, path, run_sha256, results, records)  # --ci: spreads them too
    return Outcome(path, name, "evaluated", records, len(results.query_ids), results.summary(),
                   results=results, stamp=made, spread=made.get("spread"),
                   tag=results.run_tag)


def evaluate_partitioned(client, qrels: Qrels, path: str, measures: list[Measure],
                         settings: Settings, block_bytes: int, shared=None
                         ) -> tuple[Results, int]:
    """(Results, records) of one run read as a dask.dataframe shuffled by query id."""
    import dask
    import dask.dataframe as dd

    ranges = _line_ranges(path, block_bytes)
    counts = client.gather(client.map(_count_lines, [path] * len(ranges), ranges, pure=False))
    offsets = np.concatenate(([0], np.cumsum(counts)[:-1])).tolist()
    ranks = settings.ties == "rank"
    pieces = [(path, start, stop, offset, ranks) for (start, stop), offset in zip(ranges, offsets)]
    frame = dd.from_map(_read_range, pieces, meta=_meta(ranks), enforce_metadata=False)
    grouped = frame.shuffle(on="query_id", npartitions=len(pieces))
    tag = client.submit(_last_tag, path, pure=False).result() or Path(path).name
    shared = shared if shared is not None else client.scatter(qrels, broadcast=True)
    plan = Plan.of(measures, qrels)
    tasks = [dask.delayed(_evaluate_partition)(part, shared, plan, settings, path, tag)
             for part in grouped.to_delayed()]
    parts: list[Part] = client.gather(client.compute(tasks))
    results = combine(parts, qrels, plan, settings, Path(path).name, tag, path)
    with open(path, "rb") as handle:  # the workers drop a leading BOM: the notes say so
        bom = handle.read(len(BOM)) == BOM
    results.notes[:0] = [bom_note(data) for data, dropped in ((qrels.path, qrels.bom_dropped),
                                                                (path, bom)) if dropped]
    return results, sum(part.records for part in parts)


# ---- on the workers -------------------------------------------------------------------------

def _line_ranges(path: str, block_bytes: int) -> list[tuple[int, int]]:
    """Byte ranges of about ``block_bytes`` cut at line ends by the cutter every reader
    shares (``pieces.piece_bounds``), over the file read where each cut falls (the few
    bytes up to its next newline, ``bounded.FileBytes``), not over a map of the file:
    one truncated meanwhile would end the process with SIGBUS."""
    with open(path, "rb", buffering=0) as handle:
        state = file_state(handle)
        if state is None or state[0] == 0:
            return [(0, 0)]
        ranges = list(piece_bounds(FileBytes(path, handle, state[0]), block_bytes))
        refuse_changed(path, handle, state)
    return ranges


def _range_bytes(path: str, start: int, stop: int) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(stop - start)
    return data[len(BOM):] if start == 0 and data.startswith(BOM) else data


def _count_lines(path: str, span: tuple[int, int]) -> int:
    return line_count(_range_bytes(path, *span))


def _portable(exc: SearchevalError) -> SearchevalError:
    """The error as it can travel back from a worker (pickle cannot rebuild a FormatError,
    whose constructor takes three arguments): same class family, same message."""
    return SearchevalError(str(exc))


def _read_range(piece: tuple) -> "object":
    """One partition: the rows of the lines in a byte range, as a pandas DataFrame."""
    import pandas as pd
    import pyarrow as pa

    from .stream import _parse
    path, start, stop, offset, ranks = piece
    try:
        run = _parse(path, _range_bytes(path, start, stop), offset, ranks)
    except SearchevalError as exc:
        raise _portable(exc) from None
    columns = {"query_id": run.query.values(), "doc_id": run.doc.values(),
               "score": pa.array(run.scores), "line": pa.array(run.lines, pa.int64())}
    if ranks:
        columns["rank"] = pa.array(run.ranks)
    return pa.table(columns).to_pandas(types_mapper={pa.string(): pd.StringDtype("pyarrow")}.get)


def _meta(ranks: bool):
    import pandas as pd
    frame = pd.DataFrame({"query_id": pd.Series([], dtype=pd.StringDtype("pyarrow")),
                          "doc_id": pd.Series([], dtype=pd.StringDtype("pyarrow")),
                          "score": pd.Series([], dtype="float64"),
                          "line": pd.Series([], dtype="int64")})
    if ranks:
        frame["rank"] = pd.Series([], dtype="float64")
    return frame


def _last_tag(path: str) -> str | None:
    """The run tag of the last record line, trec_eval's runid (it keeps the tag of each line
    it reads, so the last one stays), as the whole-file reader has it. Read from the end,
    64 KiB at a time: a partitioned run is large, its tag at the end."""
    with open(path, "rb") as handle:
        end, tail = handle.seek(0, os.SEEK_END), b""
        while end > 0:
            start = max(0, end - (1 << 16))
            handle.seek(start)
            tail = handle.read(end - start) + tail
            end = start
            lines = tail.split(b"\n")
            for line in reversed(lines if start == 0 else lines[1:]):  # lines[0] may be cut
                fields = line.split()
                if fields and not fields[0].startswith(b"#"):  # the grammar's record line
                    return (fields[TREC_RUN.at("tag")].decode("utf-8", "replace")
                            if TREC_RUN.counts_ok(len(fields)) else None)
    return None


def _evaluate_partition(frame, qrels: Qrels, plan: Plan, settings: Settings,
                        path: str, tag: str) -> Part:
    """A partition holds whole queries (shuffled by query id): evaluate it on its own."""
    import pyarrow as pa

    from ..model.columns import encode
    from ..io.trec import make_run
    if len(frame) == 0:
        return Part([], np.zeros((len(plan.computed), 0)), [])
    ranks = frame["rank"].to_numpy(dtype=np.float64) if "rank" in frame else None
    try:
        run: Run = make_run(encode(pa.array(frame["query_id"], pa.string())),
                            encode(pa.array(frame["doc_id"], pa.string())),
                            frame["score"].to_numpy(dtype=np.float64),
                            frame["line"].to_numpy(dtype=np.int64), path, tag, ranks=ranks)
        part = evaluate_block(qrels, run, plan, settings)
    except SearchevalError as exc:
        raise _portable(exc) from None
    part.records = len(frame)
    return part
