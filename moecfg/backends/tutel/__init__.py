"""Tutel capacity, sharding and communication-volume formulas."""
