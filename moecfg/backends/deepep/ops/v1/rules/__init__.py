"""DeepEP V1 (`Buffer`) rule families; the helpers they use are in deepep/shared/rules."""
