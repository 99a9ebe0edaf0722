#!/usr/bin/env python3
"""Exits 0 when the OpenCL ICD loader finds at least one platform, 1 otherwise (the
shell tests of tests/opencl skip, exit 77, on 1)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_placement import opencl_platforms  # noqa: E402

sys.exit(0 if opencl_platforms() else 1)
