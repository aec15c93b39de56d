"""OMEGA on the bundled model: wall time against RandomFewShot, the slowest LM call."""
