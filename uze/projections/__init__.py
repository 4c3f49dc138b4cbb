"""Artifact kinds uze writes: folders (tree), regions, and later config entries and files."""
