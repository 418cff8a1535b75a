"""`python -m mzpay_admin ...`"""

from mzpay_admin.cli import main

raise SystemExit(main())
