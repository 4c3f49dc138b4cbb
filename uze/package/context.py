"""A package's instructions from the context files its `gemini-extension.json` names.

A Gemini CLI extension names its instruction text with `contextFileName` (a path or a list of
paths, relative to the extension root; absent or empty means `GEMINI.md`), and Gemini CLI
loads each file that exists with its `@path` imports inlined. Read as Gemini CLI 0.61.0 reads
them (its bundle: `getContextFileNames`, `validateContextFilePath`, `processImports`):

- a name that is not a non-empty string is skipped (a warning); a named file that is missing
  is a warning (the default `GEMINI.md` may be absent in silence); an absolute name, one with
  `..`, or one that leaves the package is a refusal (Gemini CLI refuses it too);
- `@<path>` at the start of a line or after a space or tab, `<path>` starting with `.`, `/` or
  a letter, outside backtick code, is replaced by the imported file's text between
  `<!-- Imported from: <path> -->` and `<!-- End of import from: <path> -->` (nested up to 5
  deep; a file imported twice on one chain is `<!-- File already processed: <path> -->`); an
  import that is not a file of the package is `<!-- Import failed: <path> - ... -->` and a
  warning (a `file:`/`http(s):` URL too: Gemini CLI imports none), one that leaves the package
  (an absolute path, `..` above the root) a refusal: uze delivers the text outside the package,
  where an import left as written would point at the user's files.

The text of every context file found, in the order named, is the package's instructions when
it has none of its own (`uze.package.reader`). Pure: reads the tree already read.
"""

from __future__ import annotations

import json
import posixpath
from bisect import bisect_right
from typing import Final

import msgspec

from uze.package.issues import issue
from uze.package.model import Instructions
from uze.package.tree import MAX_FILE_BYTES, Tree
from uze.patterns import compile_later
from uze.projections.region import marker_lines

EXTENSION_MANIFEST: Final = "gemini-extension.json"
CONTEXT_DEFAULT: Final = "GEMINI.md"  # Gemini CLI's name when `contextFileName` is falsy
SOURCE: Final = f"{EXTENSION_MANIFEST} contextFileName"
MAX_DEPTH: Final = 5  # Gemini CLI's import depth
MAX_TEXT: Final = MAX_FILE_BYTES  # the inlined text, like any one file (imports can multiply)
_MARKUP: Final = 100  # what one import adds around the file's text, at most (its two comments)
_TICKS: Final = compile_later(r"`+")
_TOKEN: Final = compile_later(r"(?<![^ \t\n\r])@([^ \t\n\r]*)")  # Gemini CLI's findImports
MAX_NOTES: Final = 20
_REFUSED_SCHEME: Final = compile_later(r"^(file|https?)://")


def context_names(tree: Tree, warnings: list[str]) -> tuple[list[str], bool] | None:
    """The context file names `gemini-extension.json` gives and whether it names them itself
    (False: the default); None without a readable manifest."""
    found = tree.files.get(EXTENSION_MANIFEST)
    if found is None:
        return None
    try:
        manifest = json.loads(found.data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None  # Gemini CLI loads no such extension; another harness's file, not refused
    if not isinstance(manifest, dict):
        return None
    named = manifest.get("contextFileName")
    if not named:
        return [CONTEXT_DEFAULT], False
    names = named if isinstance(named, list) else [named]
    out = []
    for index, name in enumerate(names):
        where = f"{EXTENSION_MANIFEST}: contextFileName" + (
            f"[{index}]" if isinstance(named, list) else "")
        if not isinstance(name, str) or not name.strip():
            warnings.append(issue(where, "expected a non-empty string; skipped"))
            continue
        out.append(name)
    return out, True


def _inside(path: str) -> str | None:
    """`path` (relative to the package root) normalized, or None when it leaves the root."""
    if path.startswith("/") or "\0" in path:
        return None
    normal = posixpath.normpath(path)
    return None if normal == ".." or normal.startswith("../") else normal


def read_context(tree: Tree, issues: list[str], warnings: list[str]) -> Instructions | None:
    """The package's instructions from its Gemini CLI context files (None when it has none)."""
    found = context_names(tree, warnings)
    if found is None:
        return None
    names, named = found
    files: list[str] = []
    texts: list[str] = []
    importer = _Importer(tree, issues, warnings)
    for name in names:
        where = f"{EXTENSION_MANIFEST}: contextFileName: {name}"
        relpath = _inside(name)
        if relpath is None or ".." in name.split("/"):
            issues.append(issue(where, "is absolute or holds .. (Gemini CLI refuses both); a "
                                "context file must be a path inside the package"))
            continue
        if relpath not in tree.files:
            if named and relpath not in tree.seen:
                warnings.append(issue(where, "no such file in the package; skipped"))
            continue
        text = importer.file(relpath)
        if text is None:
            continue
        files.append(relpath)
        importer.size += len(text)
        try:
            texts.append(importer.text(relpath, text, (relpath,)))
        except _TooLarge:
            issues.append(issue(relpath, f"with its @imports inlined the context text is larger "
                                f"than {MAX_TEXT // (1024 * 1024)} MiB; import each file once"))
            return None
    importer.summary(files[0] if files else EXTENSION_MANIFEST)
    if not files:
        return None
    body = "".join(t if t.endswith("\n") or not t else t + "\n" for t in texts).encode()
    return Instructions(tuple(files), body, SOURCE, tuple(importer.inlined))


class _TooLarge(Exception):
    """The inlined text would pass MAX_TEXT (a file imported many times over, nested)."""


class _Importer(msgspec.Struct):
    """Inlines `@` imports as Gemini CLI does, noting each file it inlined. Its work and the
    text it makes are bounded (`_TooLarge` past MAX_TEXT), whatever the imports multiply; a
    file is decoded and checked once, and at most MAX_NOTES missing imports are named."""

    tree: Tree
    issues: list[str]
    warnings: list[str]
    inlined: list[str] = msgspec.field(default_factory=list)
    size: int = 0
    texts: dict[str, str | None] = msgspec.field(default_factory=dict)
    missing: int = 0

    def file(self, relpath: str) -> str | None:
        """The file as text, decoded and checked once: UTF-8, no uze region marker line."""
        if relpath not in self.texts:
            text = self.tree.text(relpath, self.issues) if relpath in self.tree.files else None
            for number in marker_lines(self.tree.files[relpath].data) if text is not None else ():
                self.issues.append(issue(f"{relpath}:{number}", "holds a uze region marker, "
                                         "which would break the region uze writes; remove "
                                         "that line"))
            self.texts[relpath] = text
        return self.texts[relpath]

    def text(self, relpath: str, text: str, chain: tuple[str, ...]) -> str:
        """`text` (of the file `relpath`, reached through `chain`) with its imports inlined."""
        if len(chain) > MAX_DEPTH:
            return text
        code = code_regions(text)
        starts = [region[0] for region in code]
        out, last, line, counted = [], 0, 1, 0
        for match in _TOKEN.finditer(text):
            start, end, target = match.start(), match.end(), match.group(1)
            if not target or not (target[0] in "./"
                                  or (target[0].isascii() and target[0].isalpha())):
                continue
            out.append(text[last:start])
            last = end
            index = bisect_right(starts, start) - 1
            if index >= 0 and start < code[index][1]:
                out.append(f"@{target}")
                continue
            line, counted = line + text.count("\n", counted, start), start
            out.append(self.one(relpath, line, target, chain))
        out.append(text[last:])
        return "".join(out)

    def one(self, relpath: str, line: int, target: str, chain: tuple[str, ...]) -> str:
        where = f"{relpath}:{line}: @{target}"
        joined = _inside(posixpath.join(posixpath.dirname(relpath), target))
        self.size += len(target) + _MARKUP
        if joined is None:
            self.issues.append(issue(where, "imports a file outside the package; an import "
                                     "must be a file of the package"))
            return ""
        if _REFUSED_SCHEME.match(target):  # Gemini CLI does not import URLs either
            self.note(issue(where, "a URL, not imported"))
            return f"<!-- Import failed: {target} - a URL -->"
        if joined in chain:
            return f"<!-- File already processed: {target} -->"
        data = self.file(joined)
        if data is None:
            self.note(issue(where, "no such file in the package; left as a failed import"))
            return f"<!-- Import failed: {target} - not a file of the package -->"
        self.size += len(data)
        if self.size > MAX_TEXT:
            raise _TooLarge
        if joined not in self.inlined:
            self.inlined.append(joined)
        inner = self.text(joined, data, (*chain, joined))
        return f"<!-- Imported from: {target} -->\n{inner}\n<!-- End of import from: {target} -->"

    def note(self, warning: str) -> None:
        """A warning for an import not inlined; past MAX_NOTES, only counted."""
        self.missing += 1
        if self.missing <= MAX_NOTES:
            self.warnings.append(warning)

    def summary(self, location: str) -> None:
        """The one warning that counts the imports past MAX_NOTES."""
        if self.missing > MAX_NOTES:
            self.warnings.append(issue(location, f"{self.missing - MAX_NOTES} more @imports "
                                       "not inlined (the first ones are named above)"))


def code_regions(text: str) -> list[tuple[int, int]]:
    """The spans Gemini CLI's `/(`+)([\\s\\S]*?)\\1/g` matches in `text`, in linear time (the
    regex itself backtracks for minutes on a long run of backticks). From each run of
    backticks, the longest opening run of k that recurs later (as k backticks at the end of
    the same run, or at the start of a later run at least k long) closes at its earliest
    occurrence."""
    runs = [(m.start(), m.end() - m.start()) for m in _TICKS.finditer(text)]
    later = [0] * (len(runs) + 1)  # the longest run after each
    for index in range(len(runs) - 1, -1, -1):
        later[index] = max(later[index + 1], runs[index][1])
    regions: list[tuple[int, int]] = []
    index, pos = 0, 0
    while index < len(runs):
        start, length = runs[index]
        here = max(start, pos)
        size = start + length - here
        if size <= 0:
            index += 1
            continue
        k = max(size // 2, min(size, later[index + 1]))
        if k == 0:
            break
        if k <= size // 2:
            end = here + 2 * k
        else:
            index = next(t for t in range(index + 1, len(runs)) if runs[t][1] >= k)
            end = runs[index][0] + k
        regions.append((here, end))
        pos = end
    return regions
