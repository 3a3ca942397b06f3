"""The table's page as the table serves it: ``door`` (every request to the page passes
it: who sent it, the operator's PIN and its lockout) and ``tls`` (the page's HTTPS: the
table's own certificate, or the config's, and the words that say how to reach it).

The face loads neither itself: ``tls`` needs the cryptography package, which a table
serving its page in clear on its own machine never loads."""

__all__ = ["door", "tls"]
