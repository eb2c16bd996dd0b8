"""What the tool is: its name and version (one place, imported by every layer that reports it)."""

__version__ = "0.1.0"
