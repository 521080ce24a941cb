"""Print pip constraints pinning every dependency pyproject.toml declares (the core's and every
extra's) to the lower bound of its range: `numpy>=2.0,<3` becomes `numpy==2.0`.  .ci/lowest installs
with them, so that the lowest versions the ranges claim are the ones tested."""

import re
import sys
import tomllib
from pathlib import Path

project = tomllib.loads(Path(sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml").read_text())["project"]
requirements = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
for requirement in requirements:
    found = re.match(r"\s*([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*>=\s*([^,;\s]+)", requirement)
    if found is None:
        sys.exit(f"{requirement!r} has no lower bound (>=): every dependency must say the lowest version it needs")
    print(f"{found.group(1)}=={found.group(3)}")
