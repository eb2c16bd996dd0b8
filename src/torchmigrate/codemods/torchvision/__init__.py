"""Passes for torchvision's API changes. Each names its torchvision release (``package="torchvision 0.13"``); its
``release`` is the torch release that torchvision release was built for (torchvision 0.13 ↔ torch 1.12), which is what
``--to`` / ``--from`` compare."""
