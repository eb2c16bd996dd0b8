"""Passes for changes made in PyTorch 1.8."""
