"""``python -m masrl``: the same as the ``masrl`` command."""

import sys

from masrl.commands import main

sys.exit(main())
