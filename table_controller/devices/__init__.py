"""The table's devices: seat lights and buttons over GPIO, and the trump cube."""
