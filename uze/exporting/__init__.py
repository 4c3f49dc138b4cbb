"""`uze export`: what one harness has in one scope, minus what uze owns, as a portable package
(issue 34 item 1, ADR 0095).

`owned` says what uze owns in the scope (from its receipts), `secrets` turns secret values in
server definitions into environment references, `found` reads each kind from the locations the
harness's data names, and `uze.commands.export` writes the package. Nothing here writes.
"""
