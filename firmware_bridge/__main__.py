"""``python -m firmware_bridge``: emulate a reader or watch one (see firmware_bridge.cli)."""

import sys

from firmware_bridge.cli import main

sys.exit(main())
