"""The installed version of biasamp."""

__version__ = "0.1.0"
