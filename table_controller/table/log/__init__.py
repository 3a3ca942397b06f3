"""The table's log as the table uses it, over ``event_log/`` (the log itself):
``resume`` (the last game replayed at start), ``pictures`` (the camera's clearer
pictures written over the first ones), ``export`` (a game as a transcript or a score
sheet), ``verdicts`` (each game's verdicts, worked out as its hands end, kept beside
the log) and ``cli`` (``table-controller log``, loaded by name).

The face loads none of them itself: each caller takes the one it needs."""

__all__ = ["cli", "export", "pictures", "resume", "verdicts"]
