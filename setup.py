"""The one compiled part: ``searcheval.fast._dicts`` (``fast/dicts.c``), a pass in C over
a ``{query_id: {doc_id: value}}`` dict. Optional: where it cannot be built (no C
compiler), the package installs without it and takes the same steps in Python
(``fast/dicts.py``), slower on dicts and alike in every result."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("searcheval.fast._dicts", ["searcheval/fast/dicts.c"],
                             optional=True)])
