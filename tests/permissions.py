"""Child processes for which permission bits hold, root or not.

Root reads and writes any file whatever its mode (the capabilities CAP_DAC_OVERRIDE and
CAP_DAC_READ_SEARCH), and the tests run as root in CI: there the child drops those two
from its bounding set before it starts Python, so that a file of mode 000 or a folder of
mode 555 refuses it as it refuses anyone else. Not a mock: the kernel refuses."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def without_root_reading() -> None:
    """In the child, before exec: a root process keeps no way around permission bits."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot drop a capability")


def run_denied(folder: Path, *arguments: str, module: str = "searcheval"
               ) -> subprocess.CompletedProcess:
    """``python -m MODULE ARGUMENTS`` in ``folder``, permission bits holding."""
    return subprocess.run([sys.executable, "-m", module, *arguments], cwd=folder,
                          capture_output=True, text=True, preexec_fn=without_root_reading,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
