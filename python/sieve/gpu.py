"""Sieve's GPU choices (``sieve.gpu.T4(split=2)``): the same as ``sluice.gpu``."""

from sluice.gpu import *  # noqa: F401,F403 - the whole module, under Sieve's name
from sluice.gpu import __all__  # noqa: F401
