"""The compiled modules an install uses: all four where setup.py found a C compiler (the
suite's kernel-only tests then all run, none skipped), none where it found none or where
``SEARCHEVAL_PURE_PYTHON`` switches them off; the package evaluates alike either way."""

from __future__ import annotations

from kernels import compiler, evaluates_as_pytrec_eval, switched_off

from searcheval.fast import COMPILED, compiled, in_use


def test_every_compiled_module_is_in_use_where_a_compiler_is():
    if compiler() is not None and not switched_off():
        assert in_use() == ["dicts.c", "spans.c", "strings.c", "pairs.c"]
    else:
        assert in_use() == []
        assert [compiled(name) for name in COMPILED] == [None] * len(COMPILED)
    evaluates_as_pytrec_eval()


def test_the_memory_handler_is_built_where_a_compiler_is():
    """``fast/reuse.c`` (the library's memory handler, no number depends on it, so
    ``--version`` leaves it out): built with the others, so test_reuse.py runs."""
    from searcheval.fast import reuse
    if compiler() is not None and not switched_off():
        assert reuse.HANDLER is not None
    else:
        assert reuse.HANDLER is None
