"""Fit overhead: optimizer_core against synalinks on the training guide's program."""
