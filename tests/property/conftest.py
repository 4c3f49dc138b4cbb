"""Hypothesis settings profiles: `dev` locally, `ci` (more examples, no deadline) when CI is set."""

from __future__ import annotations

import os

from hypothesis import settings

# No deadline in either: examples touch a real filesystem, whose timing varies on a busy machine.
settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile("ci", max_examples=200, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
