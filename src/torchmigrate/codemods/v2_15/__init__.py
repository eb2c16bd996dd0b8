"""Passes for changes made in PyTorch 2.15."""
