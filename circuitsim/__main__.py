"""``python -m circuitsim ...``: the command line, as the ``circuitsim`` script."""
import sys

from circuitsim.cli import main

sys.exit(main())
