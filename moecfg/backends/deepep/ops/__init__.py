"""The DeepEP APIs, one folder per `api:` value (v1 Buffer with its normal / low-latency / auto modes,
v2 ElasticBuffer, hybridep HybridEPBuffer)."""
