"""The tournament director's service: every table's feed stored, alerts raised, rulings
signed and sent back, and the dashboard (docs/director.md)."""
