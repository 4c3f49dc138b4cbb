"""`uze pack`: a portable package's native envelopes (issue 34 item 4, ADR 0091, ADR 0097).

`uze.packing.envelopes` computes one folder per harness (a Claude Code plugin, a Codex plugin,
a Gemini CLI extension), `uze.packing.hooks` the native hooks each carries, and
`uze.packing.catalogs` the two marketplace catalogs over a folder of packages. All pure: the
command (`uze.commands.pack`) reads and writes.
"""
