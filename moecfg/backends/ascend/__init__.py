"""Huawei Ascend MC2 MoE dispatch/combine ops (Atlas A2 / A3)."""
