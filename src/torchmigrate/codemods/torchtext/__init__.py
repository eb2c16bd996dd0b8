"""Passes for torchtext, which is retired: 0.18 (for torch 2.3) is its last release."""
