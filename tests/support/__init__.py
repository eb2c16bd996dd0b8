"""Helpers the tests share: the CLI harness, running migrated code on real torch, a 1-rank process group."""
