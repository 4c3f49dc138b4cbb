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
import re
from typing import Final

import msgspec

from uze.package.issues import issue
from uze.package.model import Instructions
from uze.package.tree import Tree
from uze.projections.region import marker_lines

EXTENSION_MANIFEST: Final = "gemini-extension.json"
CONTEXT_DEFAULT: Final = "GEMINI.md"  # Gemini CLI's name when `contextFileName` is falsy
SOURCE: Final = f"{EXTENSION_MANIFEST} contextFileName"
MAX_DEPTH: Final = 5  # Gemini CLI's import depth
_CODE: Final = re.compile(r"(`+)([\s\S]*?)\1")
_REFUSED_SCHEME: Final = re.compile(r"^(file|https?)://")


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
        text = _text(tree, relpath, issues)
        if text is None:
            continue
        files.append(relpath)
        texts.append(importer.text(relpath, text, (relpath,)))
    if not files:
        return None
    body = "".join(t if t.endswith("\n") or not t else t + "\n" for t in texts).encode()
    return Instructions(tuple(files), body, SOURCE, tuple(importer.inlined))


def _text(tree: Tree, relpath: str, issues: list[str]) -> str | None:
    """A file that lands in the instructions region: UTF-8 and no uze region marker line."""
    text = tree.text(relpath, issues)
    for number in marker_lines(tree.files[relpath].data) if text is not None else ():
        issues.append(issue(f"{relpath}:{number}", "holds a uze region marker, which would "
                            "break the region uze writes; remove that line"))
    return text


class _Importer(msgspec.Struct):
    """Inlines `@` imports as Gemini CLI does, noting each file it inlined."""

    tree: Tree
    issues: list[str]
    warnings: list[str]
    inlined: list[str] = msgspec.field(default_factory=list)

    def text(self, relpath: str, text: str, chain: tuple[str, ...]) -> str:
        """`text` (of the file `relpath`, reached through `chain`) with its imports inlined."""
        if len(chain) > MAX_DEPTH:
            return text
        code = [match.span() for match in _CODE.finditer(text)]
        out, last = [], 0
        for start, end, target in _find(text):
            out.append(text[last:start])
            last = end
            if any(s <= start < e for s, e in code):
                out.append(f"@{target}")
                continue
            out.append(self.one(relpath, text.count("\n", 0, start) + 1, target, chain))
        out.append(text[last:])
        return "".join(out)

    def one(self, relpath: str, line: int, target: str, chain: tuple[str, ...]) -> str:
        where = f"{relpath}:{line}: @{target}"
        joined = _inside(posixpath.join(posixpath.dirname(relpath), target))
        if joined is None:
            self.issues.append(issue(where, "imports a file outside the package; an import "
                                     "must be a file of the package"))
            return ""
        if _REFUSED_SCHEME.match(target):  # Gemini CLI does not import URLs either
            self.warnings.append(issue(where, "a URL, not imported"))
            return f"<!-- Import failed: {target} - a URL -->"
        if joined in chain:
            return f"<!-- File already processed: {target} -->"
        data = _text(self.tree, joined, self.issues) if joined in self.tree.files else None
        if data is None:
            self.warnings.append(issue(where, "no such file in the package; left as a failed "
                                       "import"))
            return f"<!-- Import failed: {target} - not a file of the package -->"
        if joined not in self.inlined:
            self.inlined.append(joined)
        inner = self.text(joined, data, (*chain, joined))
        return f"<!-- Imported from: {target} -->\n{inner}\n<!-- End of import from: {target} -->"


def _find(text: str) -> list[tuple[int, int, str]]:
    """(start, end, path) of each `@path` token, by Gemini CLI's `findImports` rule."""
    found = []
    index = text.find("@")
    while index != -1:
        if index > 0 and text[index - 1] not in " \t\n\r":
            index = text.find("@", index + 1)
            continue
        end = index + 1
        while end < len(text) and text[end] not in " \t\n\r":
            end += 1
        target = text[index + 1:end]
        if target and (target[0] in "./" or ("a" <= target[0].lower() <= "z"
                                             and target[0].isascii())):
            found.append((index, end, target))
        index = text.find("@", end + 1)
    return found
