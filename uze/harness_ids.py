"""The canonical harness ids and `--harness` parsing, re-exported from the registry
(`uze.harnesses`, which imports no harness module until one is used)."""

from __future__ import annotations

from uze.harnesses import HARNESS_IDS, parse_harnesses

__all__ = ["HARNESS_IDS", "parse_harnesses"]
