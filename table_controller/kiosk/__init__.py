"""The kiosk (issue 7): visitors play real cards, bots fill the empty seats, the page
teaches the game as it goes (docs/kiosk.md)."""
