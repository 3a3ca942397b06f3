"""The table's side of the fleet (issue 20): a table of an event joins the director and
runs on the config the director pushes; the protocol both sides speak is
``table_controller.fleet``.

What the rest of the package uses of it, named in ``__all__``:

- ``join_cli``: ``table-controller join`` (a command group, loaded by name);
- ``run``: a fleet's table running (``table-controller run`` with ``[fleet]``), and
  ``settings``: its own file, its membership and the director's last config made into
  the table's config;
- ``update_link``: the director's update orders handed to the update agent;
- ``commands``: the director's camera commands; ``status``: what the heartbeat tells
  the fleet view of the table's machine (both for the table's feed); ``identity``:
  which machine this is (a fingerprint of its serial number or network card), told in
  the request to join and the heartbeat, so the director sees a copied SD card.

Its own modules: ``join`` (asking to join, waiting for the approval), ``membership``
(what the table keeps once approved), ``display`` with ``lights`` and ``page`` (the
join code shown while joining), ``update_agent`` (an update taken, installed, switched).

The face loads none of them itself: the feed takes ``status`` and ``commands`` while
``run`` and ``update_link`` take the table, and a face that loaded them all would make
a circle of them; ``table-controller join`` loads only what joining needs.
"""

__all__ = ["commands", "identity", "join_cli", "run", "settings", "status", "update_link"]
