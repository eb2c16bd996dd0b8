"""Passes for changes made in PyTorch 2.14."""
