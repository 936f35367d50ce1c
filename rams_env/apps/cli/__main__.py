"""``python -m rams_env.apps.cli``: the ``rams`` command, for an environment without its console script."""

import sys

from rams_env.apps.cli import main

sys.exit(main())
