"""`python -m voiceagent`."""

from voiceagent.cli import main

raise SystemExit(main())
