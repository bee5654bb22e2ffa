"""A reference engine's C code runs in a child process (``pytrec_worker``,
``ndeval_worker``: programs of their own, run by path), so that a crash in it is a
message, not the end of searcheval. This is the parent's side, shared by both."""

from __future__ import annotations

import importlib.util
import io
import pickle
import signal
import subprocess
import sys
from pathlib import Path

from ..errors import ReferenceEngineCrash, ReferenceEngineError


def run_worker(worker: Path, module: str, payload: dict, *, engine: str, run_name: str,
               install_hint: str, not_installed: int) -> list[dict]:
    """The worker's answers (a pickle on its stdout) to ``payload`` (a pickle on its
    stdin). ``module``: what the worker imports (absent: ``install_hint``); a crash or a
    signal is a ReferenceEngineCrash naming ``engine`` and the run."""
    if importlib.util.find_spec(module) is None:
        raise ReferenceEngineError(install_hint)
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # no memo: 10x faster on a million distinct doc ids; payloads are trees
    pickler.dump(payload)
    proc = subprocess.run([sys.executable, str(worker)], input=buffer.getvalue(),
                          capture_output=True)
    if proc.returncode == 0:
        return pickle.loads(proc.stdout)
    if proc.returncode == not_installed:
        raise ReferenceEngineError(install_hint)
    raise ReferenceEngineCrash(f"the {engine} crashed on {run_name}: "
                               f"{describe_exit(proc.returncode, proc.stderr)}")


def describe_exit(code: int, stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    said = f" ({lines[-1].strip()})" if lines else ""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "a signal"
        return f"killed by {name} (signal {-code}){said}"
    return f"exit code {code}{said}"
