"""Quality on the bundled model: test reward before and after training."""
