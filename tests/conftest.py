"""Test-suite settings.

Hypothesis runs derandomized under CI (``CI`` set), so a submission's CI run is
reproducible; locally it explores new examples every run.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
