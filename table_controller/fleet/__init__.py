"""The table fleet: finding the director, joining its event, updates from the centre."""
