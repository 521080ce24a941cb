import sys

from ordercore.cli.main import main

sys.exit(main())
