"""The installed version of biasamp."""

__version__ = "0.2.0"
