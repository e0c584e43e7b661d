"""Spellings of the Ascend products every `kind: ascend` field table accepts for `product`."""

PRODUCT_ALIASES = (("atlas-a2", "A2"), ("910b", "A2"), ("ascend910b", "A2"),
                   ("atlas-a3", "A3"), ("910_93", "A3"), ("ascend910_93", "A3"))
