"""mzpay core: the shared layer of every mzpay Lambda function.

Before anything imports them, Powertools' packages that only re-export their submodules (every
event handler, every event source) are made to load a submodule on first use of one of its
names (mzpay.lazy.reexports_on_use): an API function imports the REST resolver and the API
Gateway event only. A function's handler imports mzpay before Powertools for this to hold.
"""

from mzpay.lazy import reexports_on_use

for _package in ("aws_lambda_powertools.event_handler", "aws_lambda_powertools.utilities.data_classes"):
    reexports_on_use(_package)

__version__ = "0.1.0"
