"""Rewrite the generated sections of docs/protocol.md from the message types and error codes.

python docs/gen_protocol.py            # rewrite the page in place
python docs/gen_protocol.py --check    # exit 1 if the page is stale (tests do the same)
"""

from __future__ import annotations

import sys
from pathlib import Path

from protocol.docs import update

PAGE = Path(__file__).with_name("protocol.md")


def main(argv: list[str]) -> int:
    text = PAGE.read_text(encoding="utf-8")
    fresh = update(text)
    if "--check" in argv:
        if fresh != text:
            print(f"{PAGE} is stale: run python docs/gen_protocol.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
