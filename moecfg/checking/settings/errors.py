"""The settings' one exception (its own module: config.py and globs.py both raise it, neither imports the other)."""


class ConfigError(Exception):
    """A configuration file that cannot be used (exit code 2)."""
