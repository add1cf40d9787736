# The extension module `sixpgp.sixpgp` holds the API (its docstring is the package's); the
# submodule `sixpgp.dataframe` holds the glue for Arrow-based data-frame engines.
from .sixpgp import *  # noqa: F401,F403
from .sixpgp import __all__, __doc__, __version__  # noqa: F401
