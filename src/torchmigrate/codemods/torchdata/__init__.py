"""Passes for torchdata's API changes. Each names its torchdata release (``package="torchdata 0.10"``); torchdata pins
no torch release, so ``release`` is the torch release that torchdata release came out beside."""
