"""What every app's HTTP layer shares: bounded JSON, the error format, error handlers."""
