"""uze: install one portable agent-plugin package into every coding-agent harness."""

from __future__ import annotations

__version__ = "0.1.0"
