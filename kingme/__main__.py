"""``python -m kingme`` runs the ``kingme`` command."""

import sys

from kingme.cli import main

sys.exit(main())
