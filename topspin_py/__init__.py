"""topspin-py: symmetry reduction for the SPIN model checker."""

__version__ = "0.1.0"
