"""`python -m pulse.cli <verb> ...` is the `pulse` command."""

from pulse.cli import main

raise SystemExit(main())
