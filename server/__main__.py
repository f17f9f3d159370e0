"""`python -m cumulo.server` is the `cumulo` command."""

import sys

from .cli import main

sys.exit(main())
