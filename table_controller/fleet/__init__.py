"""A table fleet: tables that find the director, join its event and take their config
from it (docs/fleet.md)."""
