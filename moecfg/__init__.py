"""moecfg: validate MoE expert-parallel deployment configs and size their communication buffers."""
__version__ = "0.1.0"
