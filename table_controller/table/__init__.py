"""The running table: configuration, the event log, the event loop, the simulated table."""
