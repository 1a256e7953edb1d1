"""A team program that fails in a known way: it gives up before connecting, with exit code 3.
Expected: "crashed" (exit code 3)."""

import sys

print("quitter: giving up at once, as the example intends", flush=True)
sys.exit(3)
