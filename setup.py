"""The compiled parts, all optional:

- ``searcheval.fast._dicts`` (``fast/dicts.c``): a pass in C over a ``{query_id: {doc_id:
  value}}`` dict;
- ``searcheval.fast._spans`` (``fast/spans.c``): uint64 keys sorted span by span;
- ``searcheval.fast._strings`` (``fast/strings.c``): hashes and byte comparisons of Arrow
  string columns;
- ``searcheval.fast._pairs`` (``fast/pairs.c``): rows of equal (query, doc hash), for the
  repeat check and the judgment join;
- ``searcheval.fast._reuse`` (``fast/reuse.c``): numpy's memory handler of a library
  call, which reuses the blocks the call freed (no number depends on it).

Where they cannot be built (no C compiler), the package installs without them and takes
the same steps in numpy and Python (``fast/dicts.py``, ``fast/group_sort.py``,
``fast/hashing.py``, ``fast/sorted_join.py``), slower and alike in every result; without
``_reuse``, numpy's own allocator serves every array."""

from setuptools import Extension, setup

setup(ext_modules=[Extension(f"searcheval.fast._{name}", [f"searcheval/fast/{name}.c"],
                             depends=["searcheval/fast/buffers.h"], optional=True)
                   for name in ("dicts", "spans", "strings", "pairs", "reuse")])
