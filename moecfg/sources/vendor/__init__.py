"""Vendor service configurations read as launches: MindIE-LLM conf/config.json."""
