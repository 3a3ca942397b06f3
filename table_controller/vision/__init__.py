"""Vision: marked decks, the table's calibration, and camera frames turned into cards."""
