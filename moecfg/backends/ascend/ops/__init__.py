"""The Ascend ops beyond dispatch_combine_v2 (which kind.py analyses itself): one module per `op:` value,
each with `analyze(doc, options) -> Analysis`, its config/facts dataclasses and its buffers."""
