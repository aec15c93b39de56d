"""OMEGA: LM and embedding calls per epoch, optimizer_core against synalinks."""
