"""The package version, in its own module: what reports print imports this, not the package (no cycle)."""
__version__ = "0.1.0"
