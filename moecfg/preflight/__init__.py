"""`moecfg preflight`: check a launch where it runs, with the facts of that machine instead of assumptions.

tools.py runs npu-smi / nvidia-smi (bounded: timeout, output cap, never raises); machine.py reads the product,
device memory, CANN release, installed framework versions and the model's config.json; launch.py builds the
launch context from them and judges the command with the same engine as `moecfg check` (checking.launch).
"""
