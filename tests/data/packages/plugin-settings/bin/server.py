"""Stands in for the MCP server: the conformance test copies tests/conformance/mcp_probe.py here."""
