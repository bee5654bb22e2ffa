"""The lines a format is recognised by: the first lines of the 64 KiB head, split one at a
time (``registry._lines``) where the whole head was split at once, the same lines."""

from __future__ import annotations

import random
import re

import pytest

from searcheval.io.registry import _lines


@pytest.mark.parametrize("text", [b"", b"a", b"a\n", b"\n", b"\r", b"\r\n", b"\n\r", b"a\r\nb",
                                  b"a\rb\nc\r\n\r\nd", b"x\r\r\n", b"1 Q0 d 1 2.5 t\n2 Q0 d"])
def test_lines_are_re_split_at_line_ends(text):
    assert list(_lines(text)) == re.split(rb"\r\n|\r|\n", text)


def test_lines_of_random_texts_are_re_split_at_line_ends():
    rng = random.Random(14)
    for _ in range(2000):
        text = bytes(rng.choice(b"ab \t#\r\n") for _ in range(rng.randrange(30)))
        assert list(_lines(text)) == re.split(rb"\r\n|\r|\n", text), text
