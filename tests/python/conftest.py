"""The gxsort Python tests (tests/python). Run from the repository root, with a build folder
configured with -DGXSORT_PYTHON=ON:
    PYTHONPATH=BUILD/python python -m pytest -q tests/python
The helpers (inputs, oracles) are in helpers.py; numpy is the oracle throughout."""

import gxsort  # noqa: F401  (a missing or broken package fails the run, never skips it)
