"""Passes for torchaudio's API changes. Each names its torchaudio release (``package="torchaudio 2.9"``); its
``release`` is the torch release that torchaudio release was built for (the same number up to 2.11)."""
