"""Placeholder: the conformance suite copies its probe MCP server here."""
