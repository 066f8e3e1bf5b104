"""``python -m companion.cli``: the same as the ``rhuna-table`` console script."""

import sys

from companion.cli import main

sys.exit(main())
