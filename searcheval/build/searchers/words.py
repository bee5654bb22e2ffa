"""From text to words, as the library lab's keyword searcher makes them (seed lesson 003).

The lesson's ``search.js``: ``plain(text.toLowerCase()).split(" ")``, where ``plain`` folds
the seven letters áéíóúüñ to aeiouun, then drops empty strings and stop words. Only those
seven letters are folded (``à`` or ``ç`` stay as they are) and punctuation stays attached
to its word ("domingos." is not "domingos"): that is the lesson's searcher. Words are
split on runs of whitespace; on the lesson's texts, which hold single spaces only, that is
exactly ``split(" ")`` without the empty strings.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import FormatError, UsageError, quoted

# search.js, `const stop = [...]`, in the lesson's order.
LESSON_STOP_WORDS = ("el", "la", "los", "las", "un", "una", "y", "a", "de", "del",
                     "en", "al", "con", "por", "para", "es", "son", "mi", "me", "que")
# Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET (33 words), the list Lucene's English
# analyzers drop, e.g. in the Cranfield runs under fixtures/cranfield-runs.
ENGLISH_STOP_WORDS = ("a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if",
                      "in", "into", "is", "it", "no", "not", "of", "on", "or", "such", "that",
                      "the", "their", "then", "there", "these", "they", "this", "to", "was",
                      "will", "with")
STOP_LISTS = {"es": LESSON_STOP_WORDS, "en": ENGLISH_STOP_WORDS, "none": ()}
STOP_LIST_NAMES = {"es": "the lesson's Spanish list", "en": "Lucene's English list",
                   "none": "none"}
FOLD = str.maketrans("áéíóúüñ", "aeiouun")


def plain(text: str) -> str:
    """Lower case, then áéíóúüñ folded to aeiouun (the lesson's ``plain``)."""
    return text.lower().translate(FOLD)


def words(text: str, stop: frozenset[str]) -> list[str]:
    """The text's words in order, repeats kept, stop words dropped."""
    return [word for word in plain(text).split() if word not in stop]


def stop_words(choices: list[str] | tuple[str, ...]) -> frozenset[str]:
    """The union of named lists (``es``, ``en``, ``none``) and files (one word a line, ``#``
    starts a comment), every word folded as the texts are."""
    found: set[str] = set()
    for choice in choices:
        if choice in STOP_LISTS:
            found.update(STOP_LISTS[choice])
        else:
            found.update(_stop_file(choice))
    return frozenset(found)


def describe_stop_words(choices: list[str] | tuple[str, ...], stop: frozenset[str]) -> str:
    named = [STOP_LIST_NAMES.get(c, c) for c in choices]
    return f"{', '.join(named)} ({len(stop)} word{'s' if len(stop) != 1 else ''})"


def _stop_file(path: str) -> list[str]:
    if not Path(path).is_file():
        raise UsageError(f"--stopwords {quoted(path)}: neither a list ({', '.join(STOP_LISTS)}) nor "
                         "a file")
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        line = Path(path).read_bytes().count(b"\n", 0, exc.start) + 1
        raise FormatError(path, line, "not UTF-8 text: save the stop word list as UTF-8") \
            from None
    except OSError as exc:  # permission denied: one line naming it, as every input
        raise FormatError(path, 0, f"cannot read the file: {exc.strerror or exc}") from None
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        content = line.split("#", 1)[0].strip()
        if len(content.split()) > 1:
            raise FormatError(path, number, f"expected one stop word a line, found {quoted(content)}")
        if content:
            found.append(plain(content))
    return found
