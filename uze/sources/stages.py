"""The versions git keeps of a file that a merge left in conflict (ADR 0073): in the index,
stage 1 is the merge base, stage 2 the branch merged into (ours, `HEAD`), stage 3 the branch
being merged (theirs). Each is the whole file as that commit has it, whatever conflict style
wrote the markers in the working file, so `uze.sources.merge` resolves from them package by
package with the base (git's default style writes no base, and lines it merged on its own sit
outside the hunks, mixing both branches' entries in a side put together from the markers).

Read with the hardened local git (`git ls-files -u`, then `git cat-file blob`), only for a file
that has conflict markers; outside a repository, or once the file is no longer unmerged in the
index, there are no stages and the markers alone are read.
"""

from __future__ import annotations

from pathlib import Path

from uze.paths import Paths
from uze.sources.git import local_bytes
from uze.sources.markers import Sides


def _blobs(listing: bytes) -> dict[int, str]:
    """Stage -> blob id from `git ls-files -u -z` of one path (`mode blob stage<TAB>path`)."""
    found: dict[int, str] = {}
    for entry in listing.split(b"\0"):
        head, tab, _path = entry.partition(b"\t")
        fields = head.split()
        if tab and len(fields) == 3 and fields[2] in (b"1", b"2", b"3"):
            found[int(fields[2])] = fields[1].decode("ascii", "replace")
    return found


def index_sides(paths: Paths, path: Path) -> Sides | None:
    """Ours (stage 2), theirs (stage 3) and the merge base (stage 1, None when the branches
    added the file each on their own) of the unmerged file at `path`, or None when git holds no
    such stages for it. The labels are left empty: the working file's markers name them."""
    listing = local_bytes(paths, ["ls-files", "-u", "-z", "--", path.name], path.parent)
    blobs = _blobs(listing or b"")
    if 2 not in blobs or 3 not in blobs:
        return None
    read = {stage: local_bytes(paths, ["cat-file", "blob", blob], path.parent)
            for stage, blob in blobs.items()}
    if read.get(2) is None or read.get(3) is None:
        return None
    return Sides(read[2] or b"", read[3] or b"", read.get(1), "", "")
