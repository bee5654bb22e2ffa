"""Messages that point at the right place (NEWCOMER defect 8): where a JSON text stops
being JSON, an unclosed quote in a CSV, and diversity qrels read as plain ones.

Each expected message is written out whole; the positions are counted by hand in the
text each test writes (derivations beside them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import cli

ROOT = Path(__file__).resolve().parent.parent
LIBRARY_QRELS = ROOT / "fixtures" / "seeds" / "library.qrels"


def refusal(tmp_path: Path, name: str, content: bytes, *options: str) -> tuple[int, str]:
    """Exit code and stderr of evaluating the run ``content`` (as file ``name``)."""
    path = tmp_path / name
    path.write_bytes(content)
    result = cli("evaluate", LIBRARY_QRELS, path, "-m", "RR", *options)
    return result.exit_code, result.stderr.replace(str(tmp_path) + "/", "")


# ---- 8a: JSON keeps where it stopped -----------------------------------------------------

def test_truncated_jsonl_says_where_the_unterminated_string_starts():
    # fixtures/bad/truncated.jsonl's line 2 is cut inside a key: `"sco` opens after the
    # 35 characters of `{"query_id": "q1", "doc_id": "d2", `, at column 36.
    path = ROOT / "fixtures" / "bad" / "truncated.jsonl"
    result = cli("evaluate", LIBRARY_QRELS, path)
    assert (result.exit_code, result.stderr) == \
        (2, f"{path}:2: not valid JSON: Unterminated string starting at (column 36)\n")


@pytest.mark.parametrize("line_end", [b"\n", b"\r\n", b"\r"])
def test_a_json_document_names_the_physical_line_and_column(tmp_path, line_end):
    # Line 2 is `  "d2": }`: the value json expects is at the `}`, the 9th character. A lone
    # \r ends a line too (json's own lineno would say line 1 there).
    content = b'{"q1": {"d1": 1,' + line_end + b'  "d2": }}\n'
    assert refusal(tmp_path, "bad.json", content) == \
        (2, "bad.json:2: not valid JSON: Expecting value (column 9)\n")
