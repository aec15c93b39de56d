"""Websocket latency of run events."""
