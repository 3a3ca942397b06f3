"""A smart Euchre table: reads the cards played, proves reneges, keeps the score."""

__version__ = "0.1.0"
