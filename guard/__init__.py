"""perfguard: catch scalability bugs before they merge."""

__version__ = "0.1.0"
__all__ = ["__version__"]
