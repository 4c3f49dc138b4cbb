"""Artifact kinds: what carries a projection on disk, one module per kind (ADR 0036).

`kind.py` is the protocol every kind implements; `registry.py` maps each `ArtifactKind` of
`uze.vocabulary` to its kind and is what install, upgrade, uninstall and status call. A kind
binds three things: its planned shape (`uze.plan.model`), its receipt record
(`uze.state.receipts`) and its bytes on disk, which it edits through the mechanics of
`uze.projections` and a transaction.
"""
