"""The planner: inverse solving (`moecfg plan`), sweeps (`moecfg sweep`) and the device-memory catalog.

Kept empty so that `moecfg check`, which imports `moecfg.backends.device.rules`, pays for nothing else.
"""
