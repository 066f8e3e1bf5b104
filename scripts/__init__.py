"""Tools run from the checkout's root as modules: ``python -m scripts.<name>``."""
