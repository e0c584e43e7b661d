"""What several DeepEP APIs share: rule helpers and the wasted-memory family (shared/rules/)."""
