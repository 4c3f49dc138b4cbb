"""Planning: package + location + harnesses -> projections, and what each harness's rendering of a
resource needs (agents, commands, MCP dialects, skill roots, the package copy, Claude Code's own
plugin route)."""
