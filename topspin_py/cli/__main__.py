"""``python -m topspin_py.cli``: the topspin-py command."""

import sys

from topspin_py.cli import main

sys.exit(main())
