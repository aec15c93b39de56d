"""Upload validation throughput."""
