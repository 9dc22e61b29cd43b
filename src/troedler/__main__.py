"""``python -m troedler``: the command line."""

import sys

from troedler.cli import main

sys.exit(main())
