"""Portable hooks delivered to harnesses: native tool names, generated wrappers, delivery plans."""
