#!/usr/bin/env python3
"""A program that fails in a known way: it answers its name, places nothing and exits with
code 3 (an internal error, spec penguins.md) on its first call. Expected: "crashed"."""

import sys

if "name" in sys.argv:
    print("crasher")
    sys.exit(0)
print("crasher: internal error, as the example intends", file=sys.stderr)
sys.exit(3)
