"""Trigger words: the cheap first look at a file, one trie-shaped regex for all the passes in a run."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from functools import lru_cache

from torchmigrate.core.passes import Pass, last_components
from torchmigrate.python.lastfile import keeps


def trie_pattern(words: Iterable[str]) -> str:
    """A regex alternation of ``words`` factored into a trie (``ab|ac`` → ``a(?:b|c)``): far faster than a flat list."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in set(words):
        if not word:
            continue
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    if not trie:
        return "(?!)"  # no words: match nothing

    def build(node: dict[str, dict]) -> str:  # type: ignore[type-arg]
        ends = "" in node
        branches = [re.escape(char) + build(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if ends:  # a word ends here and longer ones continue: any match will do for a prefilter
            return f"(?:{body})?"
        return body

    return build(trie)



@lru_cache(maxsize=256)
def text_regex(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(trie_pattern(words))



@lru_cache(maxsize=256)
def _bytes_regex(words: tuple[str, ...]) -> re.Pattern[bytes]:
    return re.compile(trie_pattern(words).encode("utf-8"))



_RUN = re.compile(r"[\w.]+")
_IDENTIFIER = re.compile(r"\w+")


def slice_regex(passes: Sequence[Pass]) -> re.Pattern[str]:
    """The trigger words of ``passes`` as the slicer looks for them in a statement.

    A word that is the last component of a qualified name a pass acts on (its renames, call rewriters, ``qualnames``)
    counts only as a whole identifier (``load``, not the ``load`` of ``load_dataset`` or ``download``): a reference to
    the name spells it so, in the import that binds it or at the use. Every other word (a config key that also ends
    longer keys, ``.storage()``, a prefix) counts wherever it occurs."""
    whole: set[str] = set()
    anywhere: set[str] = set()
    for pass_ in passes:
        names = set(last_components([*pass_.renames, *pass_.call_rewriters, *(pass_.qualnames or ())]))
        for word in pass_.triggers:
            (whole if word in names and _IDENTIFIER.fullmatch(word) else anywhere).add(word)
    return _slice_regex(tuple(sorted(whole - anywhere)), tuple(sorted(anywhere)))


@lru_cache(maxsize=64)
def _slice_regex(whole: tuple[str, ...], anywhere: tuple[str, ...]) -> re.Pattern[str]:
    parts = [rf"(?<!\w)(?:{trie_pattern(whole)})(?!\w)"] if whole else []
    if anywhere:
        parts.append(trie_pattern(anywhere))
    return re.compile("|".join(parts) or r"(?!)")


class _WordIndex:
    """For one set of trigger words: the regex of the dotted-identifier words, and per matched word the words it
    shows are present; for the other words (``' eig\n'``, ``import amp``), the identifiers each spells whole."""

    def __init__(self, words: tuple[str, ...]) -> None:
        self.words = tuple(w for w in words if _RUN.fullmatch(w))
        self.regex = re.compile(trie_pattern(self.words))
        self.others = tuple((w, *_identifiers(w)) for w in words if not _RUN.fullmatch(w))
        self._seen: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        self._quiet: set[str] = set()  # runs seen that hold no word
        self._runs: dict[str, tuple[str, ...]] = {}  # runs seen that hold words, with those words
        self._last: tuple[str, set[str], set[str]] | None = None  # the last text (by identity), its words, identifiers
        starting: dict[str, set[str]] = {}
        for word in self.words:
            for end in range(1, len(word) + 1):
                starting.setdefault(word[:end], set()).add(word)
        self._starting = {prefix: frozenset(found) for prefix, found in starting.items()}
        """Per prefix of a word, the words that start with it."""

    def explain(self, match: str) -> tuple[frozenset[str], frozenset[str]]:
        """(words inside ``match``, words that may start inside it and run past its end): those a suffix of ``match``
        (after its first character) is a prefix of, found per suffix in :attr:`_starting` (a few dictionary lookups
        per match rather than a prefix test per word and suffix, which cost each worker process about 0.1 s)."""
        found = self._seen.get(match)
        if found is None:
            inside = frozenset(w for w in self.words if w in match)
            starting = self._starting
            across: set[str] = set()
            for k in range(1, len(match)):
                words = starting.get(match[k:])
                if words is not None:
                    across |= words
            found = self._seen[match] = (inside, frozenset(across - inside))
        return found

    def present(self, text: str) -> set[str]:
        """The words that occur in ``text``.

        A word made of word characters and dots lies inside one maximal run of them; a run never holds a newline, so
        no match spans two. Each distinct run is looked at once per process: the words it holds (most hold none) are
        remembered, and a file's words are those of its runs (real files of one tree share three quarters of their
        runs). A word with other characters occurs only if each identifier it spells whole (bounded inside it on both
        sides) is one of the file's and each at its ends lies in a run; only then is the text searched for it."""
        last = self._last
        if last is not None and last[0] is text:  # the engine asks first whether any word occurs, then which
            _LAST_IDENTIFIERS[:] = [(text, last[2])]
            return last[1]
        distinct = runs(text)
        identifiers = {part for run in distinct for part in run.split(".")}
        _LAST_IDENTIFIERS[:] = [(text, identifiers)]
        present: set[str] = set()
        known = self._runs
        fresh: list[str] = []
        for run in distinct - self._quiet:
            words = known.get(run)
            if words is None:
                fresh.append(run)
            else:
                present.update(words)
        if fresh:
            present |= self._learn(fresh)
        if self.others:
            joined: str | None = None
            for w, whole, edges in self.others:
                if whole <= identifiers:
                    if joined is None:
                        joined = "\n".join(distinct)
                    if all(e in joined for e in edges) and w in text:
                        present.add(w)
        self._last = (text, present, identifiers)
        return present

    def _learn(self, fresh: list[str]) -> set[str]:
        """The words the runs ``fresh`` hold, each run's remembered (all are forgotten past ``_REMEMBERED`` runs)."""
        if len(self._quiet) + len(self._runs) > _REMEMBERED:
            self._quiet.clear()
            self._runs.clear()
        joined = "\n".join(fresh)
        starts: list[int] = []
        position = 0
        for run in fresh:
            starts.append(position)
            position += len(run) + 1
        held: dict[int, set[str]] = {}
        for match in self.regex.finditer(joined):
            inside, across = self.explain(match.group())
            index = bisect_right(starts, match.start()) - 1
            words = held.get(index)
            if words is None:
                words = held[index] = set()
            words |= inside
            if across:
                run = fresh[index]
                words.update(w for w in across if w in run)
        found: set[str] = set()
        for index, run in enumerate(fresh):
            words = held.get(index)
            if words:
                self._runs[run] = tuple(words)  # a tuple of strings: the collector stops tracking it
                found |= words
            else:
                self._quiet.add(run)
        return found


_REMEMBERED = 400_000
"""Runs one word index remembers (about 30 MB of a worker's memory on torch's tree) before it starts again."""


def runs(text: str) -> set[str]:
    """``set(_RUN.findall(text))``: the distinct maximal runs of word characters and dots, found about three times
    faster. In the UTF-8 bytes every ASCII byte that is neither a word character nor a dot becomes a space and the rest
    is split at the spaces; a piece that holds a non-ASCII character (which may or may not be a word character) is
    split again by the regex."""
    data = text.encode("utf-8", "surrogatepass").translate(_RUN_BYTES)
    if data.isascii():
        return set(data.decode("ascii").split())
    found: set[str] = set()
    for piece in set(data.split()):
        if piece.isascii():
            found.add(piece.decode("ascii"))
        else:
            found.update(_RUN.findall(piece.decode("utf-8", "surrogatepass")))
    return found


_RUN_BYTES = bytes(
    byte if byte >= 0x80 or chr(byte).isalnum() or chr(byte) in "_." else 0x20 for byte in range(256)
)
"""The byte table of :func:`runs`: ASCII word characters, dots and non-ASCII bytes kept, every other byte a space."""


_LAST_IDENTIFIERS: list[tuple[str, set[str]]] = []
_LAST_PRESENT: list[tuple[str, set[str]]] = []
keeps(_LAST_IDENTIFIERS.clear)
keeps(_LAST_PRESENT.clear)


def present_triggers(text: str) -> set[str] | None:
    """The trigger words :func:`triggered` last found in ``text`` (by identity), or ``None`` if it was not the last."""
    if _LAST_PRESENT and _LAST_PRESENT[0][0] is text:
        return _LAST_PRESENT[0][1]
    return None


def identifiers(text: str) -> set[str]:
    """The identifiers ``text`` spells anywhere (code, strings, comments); the last text's are remembered (by
    identity), as :func:`triggered` found them."""
    if _LAST_IDENTIFIERS and _LAST_IDENTIFIERS[0][0] is text:
        return _LAST_IDENTIFIERS[0][1]
    found = {part for run in runs(text) for part in run.split(".")}
    _LAST_IDENTIFIERS[:] = [(text, found)]
    return found


def _identifiers(word: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The identifiers of ``word`` with a non-word character (inside ``word``) on both sides — in a text holding
    ``word``, each is a whole dot-separated part of a run (``.storage()`` → ``storage``) — and those at its ends,
    which lie inside a run."""
    whole, edges = set(), []
    for m in _IDENTIFIER.finditer(word):
        if m.start() > 0 and m.end() < len(word):
            whole.add(m.group())
        else:
            edges.append(m.group())
    return frozenset(whole), tuple(edges)


@lru_cache(maxsize=64)
def _word_index(words: tuple[str, ...]) -> _WordIndex:
    return _WordIndex(words)


def triggered(text: str, passes: Sequence[Pass]) -> list[Pass]:
    """The passes (order kept) one of whose trigger words occurs in ``text`` (and whose ``text_filter``, if any, lets
    the text through), in one scan for all (:meth:`_WordIndex.present`).

    The scan reports, at each position it reaches, the longest word starting there (the trie has one branch per next
    character and greedy optional tails). A word occurs iff it lies inside a reported match, or starts inside one and
    runs past its end (then it is looked up directly): an occurrence at a position the scan reached starts a match it
    is a prefix of, and any other lies within or across the match that covered its start."""
    present = _word_index(trigger_words(passes)).present(text)
    _LAST_PRESENT[:] = [(text, present)]
    return [p for p in passes if not present.isdisjoint(p.triggers) and (p.text_filter is None or p.text_filter(text))]


def trigger_words(passes: Sequence[Pass]) -> tuple[str, ...]:
    """Every trigger word of ``passes``, sorted and each once: the key of the scans and regexes made for them."""
    return tuple(sorted({w for p in passes for w in p.triggers}))


def spells_a_trigger(text: str, passes: Sequence[Pass]) -> bool:
    """Whether a trigger word of ``passes`` occurs in ``text``: what their combined regex finds, by the scan
    :func:`triggered` makes next (remembered for the same text), without compiling that regex of every word."""
    return bool(_word_index(trigger_words(passes)).present(text))


def bytes_trigger_regex(passes: Sequence[Pass]) -> re.Pattern[bytes]:
    """The combined trigger regex over raw bytes (exact for UTF-8 and the ASCII-compatible encodings)."""
    return _bytes_regex(trigger_words(passes))



def trigger_lines(text: str, passes: Sequence[Pass]) -> list[int]:
    """The (1-based, sorted) lines on which any trigger word of ``passes`` occurs."""
    lines: list[int] = []
    line, position = 1, 0
    for match in text_regex(trigger_words(passes)).finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines
