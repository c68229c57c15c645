"""The main job behind ``make demo``."""

from __future__ import annotations

import sys


def main() -> int:
    """Run the demo and print where its outputs are."""
    print("cuzklab demo: nothing to run yet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
