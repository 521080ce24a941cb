import sys

from ordercore.cli import main

sys.exit(main())
