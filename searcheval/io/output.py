"""The one writer of every output, atomically: to a temporary name beside the target, then
rename. Whole files (``write_file``; several, all or none: ``write_files``) or one written
a piece at a time (``atomic_file``) are staged by the same steps.

A rename keeps the temporary file's mode, and ``tempfile.mkstemp`` creates its file with
mode 0600: every output used to be 0600 whatever the umask. So the temporary file is
created here as ``open()`` creates a file, asking for 0666 and letting the kernel apply the
umask (and a directory's default ACL, which replaces the umask there). Reading the umask
instead would mean setting it (``os.umask`` can only be read by setting it, process-wide,
so a file another thread creates meanwhile gets the wrong mode) or reading
/proc/self/status, which is Linux only and ignores default ACLs. A file that replaces
another takes the mode that file had, and its owner, group and extended attributes where
this process may set them.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from ..errors import UsageError

NEW_FILE_MODE = 0o666  # what open() asks for; the kernel takes the umask off
_TRIES = 100  # temporary names tried before giving up (each 48 random bits)


def refuse_inputs_as_outputs(outputs: list[str | None], inputs: list[str | None]) -> None:
    """Refuse an output that is one of the command's inputs (the same file by any name: a
    symlink, a hard link, ``./x``): the atomic rename would replace the input with the
    output, and the user's run or qrels would be gone. Checked before anything is read."""
    for target in outputs:
        for source in inputs:
            if _same_file(target, source):
                raise UsageError(f"{target}: is also an input ({source}): write the output "
                                 "to another file")


def refuse_stdin_twice(inputs: list[str | None]) -> None:
    """Standard input read for two inputs: the first takes it all and the second reads
    nothing, so ``evaluate - -`` scored an empty run (every query 0, exit 0)."""
    if list(inputs).count("-") > 1:
        raise UsageError("'-' (standard input) is given for two inputs: it can be read only "
                         "once; give the other input as a file")


def _same_file(target: str | None, source: str | None) -> bool:
    if target in (None, "-") or source in (None, "-"):
        return False
    try:
        return os.path.samefile(target, source)
    except (OSError, ValueError):  # not there (yet), irds:NAME, a name too long
        return False


def write_file(target: str | Path, data: str | bytes) -> None:
    """``data`` (text as UTF-8) to the file ``target``, never half-written, with the mode
    ``open()`` would give a new file, or the mode of the file it replaces."""
    write_files([(target, data)])


def write_files(outputs: list[tuple[str | Path, str | bytes]], between=None) -> None:
    """Each ``(target, data)`` as ``write_file`` writes one, all or none: two outputs on
    one path are refused, every temporary file is made and written first, then ``between``
    (a write that cannot be taken back, standard output's) is called, then all are renamed.
    A failure anywhere before the renames leaves every target as it was."""
    refuse_shared_outputs([str(target) for target, _ in outputs])
    staged: list[tuple[str | Path, Path, Path]] = []
    streams = [_is_stream(target) for target, _ in outputs]
    try:
        for (target, data), stream in zip(outputs, streams):
            if not stream:
                staged.append(_staged(target, data))
        for (target, data), stream in zip(outputs, streams):
            if stream:  # a pipe or device: nothing to replace, written into
                with _into_stream(target) as handle:
                    handle.write(_as_bytes(data))
        if between is not None:
            between()
        while staged:
            _renamed(*staged[0])
            staged.pop(0)
    finally:
        for _, _, temporary in staged:  # those not renamed
            temporary.unlink(missing_ok=True)


def refuse_shared_outputs(targets: list[str | None], roles: list[str] | None = None) -> None:
    """Two outputs in one file (by any name): the later would replace the earlier, and both
    would be reported as written."""
    for i, target in enumerate(targets):
        for j in range(i):
            if _same_path(target, targets[j]):
                both = f"both {roles[j]} and {roles[i]}" if roles else "two outputs"
                raise UsageError(f"{target}: named for {both}: give each output a file of "
                                 "its own")


def _same_path(first: str | None, second: str | None) -> bool:
    """One file by any name; '-' (standard output) given twice is one place too."""
    if first is None or second is None or "-" in (first, second):
        return first == second == "-"
    return os.path.realpath(first) == os.path.realpath(second) or _same_file(first, second)


def _staged(target: str | Path, data: str | bytes) -> tuple[str | Path, Path, Path]:
    """(target, the path it resolves to, its temporary file written in full)."""
    with _staging(target) as (handle, path, temporary):
        handle.write(_as_bytes(data))
    return target, path, temporary


def _as_bytes(data: str | bytes) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


@contextmanager
def atomic_file(target: str | Path) -> Iterator[BinaryIO]:
    """A binary file to write ``target``'s content into a piece at a time, put in place on
    leaving (``write_file``'s rules): a writer streams its output there instead of
    holding it whole. An OSError while it is written (a full disk) is a UsageError naming
    ``target``, and the temporary file is removed; so is it on any other error."""
    if _is_stream(target):  # a pipe or device (/dev/null, /dev/stdout): nothing to replace
        with _into_stream(target) as handle:
            yield handle
        return
    with _staging(target) as (handle, path, temporary):
        yield handle
    try:
        _renamed(target, path, temporary)
    finally:
        temporary.unlink(missing_ok=True)  # gone already once renamed


@contextmanager
def _staging(target: str | Path) -> Iterator[tuple[BinaryIO, Path, Path]]:
    """(an open temporary file beside the path ``target`` resolves to, that path, the
    temporary's path), given ``target``'s owner, attributes and mode once written; removed
    on any error, an OSError becoming a UsageError naming ``target``."""
    # Through a symlink, as open() writes: the rename would otherwise put a new file in
    # the link's place and leave the file it names stale.
    path = Path(os.path.realpath(target))
    if os.path.isdir(path):  # found before any output is renamed (the rename would fail on it)
        raise UsageError(f"{target}: cannot write: {os.strerror(errno.EISDIR)}")
    try:
        fd, temporary = _create_beside(path)
    except OSError as exc:
        raise UsageError(f"{target}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle, path, temporary
        _keep_owner_and_attributes(path, temporary)  # before the mode: chown clears setuid
        _keep_mode(path, temporary)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise UsageError(f"{target}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _renamed(target: str | Path, path: Path, temporary: Path) -> None:
    try:
        os.replace(temporary, path)
    except OSError as exc:
        raise UsageError(f"{target}: cannot write: {exc.strerror or exc}") from None


def _is_stream(target: str | Path) -> bool:
    """An existing target written into as open() writes, not replaced: a pipe, a device or
    a socket (a file renamed over its name would take its place, and the reader would get
    nothing), or a name in /dev or /proc (``/dev/stdout``, ``/dev/fd/3``: a way to an open
    file of the process, which a rename beside the file it resolves to would orphan)."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False
    folder = os.path.realpath(os.path.dirname(os.path.abspath(target)))  # /dev/fd: /proc/N/fd
    return (not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))
            or folder == "/dev" or folder.startswith("/proc/"))  # not /dev/shm's files


@contextmanager
def _into_stream(target: str | Path) -> Iterator[BinaryIO]:
    """``target`` (a pipe, a device) opened to be written into as ``open()`` writes: its
    OSError a UsageError naming it."""
    try:
        with os.fdopen(os.open(target, os.O_WRONLY | os.O_TRUNC), "wb") as handle:
            yield handle
    except OSError as exc:
        raise UsageError(f"{target}: cannot write: {exc.strerror or exc}") from None


# A temporary file's name: hidden, its target's name, 48 random bits in hex, ".tmp".
_TEMPORARY = re.compile(r"\..+\.[0-9a-f]{12}\.tmp")


def _create_beside(path: Path) -> tuple[int, Path]:
    """A new, empty file in ``path``'s folder, created as ``open()`` creates one."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(_TRIES):
        temporary = path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp"
        try:
            return os.open(temporary, flags, NEW_FILE_MODE), temporary
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path.name}")


def remove_leftovers(folder: Path) -> None:
    """Remove the temporary files this writer left in ``folder`` when its process was
    killed while writing (no ``finally`` ran): only names it makes, never a user's file."""
    for leftover in folder.glob(".*.tmp"):
        if _TEMPORARY.fullmatch(leftover.name):
            leftover.unlink(missing_ok=True)


def _keep_owner_and_attributes(path: Path, temporary: Path) -> None:
    """Give ``temporary`` the owner, group and extended attributes (an ACL among them) of
    the regular file at ``path`` it replaces, as far as this process may: a rename puts a
    new file, of the writer's owner and no attributes, where the old one was, where
    ``open()`` would have kept them. Only root may give a file another owner; anyone may
    give it a group they belong to; an attribute that cannot be set (another namespace, a
    filesystem without them) is left behind, as ``cp -p`` leaves it."""
    try:
        existing = os.stat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(existing.st_mode):
        return
    if hasattr(os, "chown"):
        for owner in (existing.st_uid, -1):  # the owner and group, else the group alone
            try:
                os.chown(temporary, owner, existing.st_gid)
                break
            except PermissionError:
                continue
    for name in _attribute_names(path):
        try:
            os.setxattr(temporary, name, os.getxattr(path, name))
        except OSError:
            continue


def _attribute_names(path: Path) -> list[str]:
    try:
        return os.listxattr(path) if hasattr(os, "listxattr") else []
    except OSError:  # a filesystem without extended attributes
        return []


def _keep_mode(path: Path, temporary: Path) -> None:
    """Give ``temporary`` the mode of the regular file at ``path`` it is about to replace
    (set exactly: the umask may have taken bits off it at creation). ``os.chmod`` on the
    name, not ``os.fchmod``, which Windows lacks before Python 3.13."""
    try:
        existing = os.stat(path)
    except FileNotFoundError:
        return
    if stat.S_ISREG(existing.st_mode):
        os.chmod(temporary, stat.S_IMODE(existing.st_mode))
