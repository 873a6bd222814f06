"""The ``biasamp`` command line. Entry point: :func:`biasamp.cli.main.main`."""
