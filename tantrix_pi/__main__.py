import sys

from tantrix_pi.cli import main

sys.exit(main())
