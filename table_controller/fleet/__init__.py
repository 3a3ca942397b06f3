"""The fleet's protocol (issue 20): what a table and the director both speak, so each
side imports it and neither imports the other.

- ``discovery``: the director announced on the local network, and what a table reads of
  it (the event, the broker, the director's key and its fingerprint);
- ``sealing``: the join code and check, and the bundle the director seals to a table it
  approved and signs;
- ``orders``: the director's signed orders to one table (its config, its commands) and
  the table's checks of them;
- ``update``: a release's wheel as both sides check it, and the table's release folders
  (``python -I -m table_controller.fleet.update``, the systemd unit's check and guard);
- ``update_order``: the signed release record of an update, and a table between games.

The table's side (joining, its membership, its lights and page while joining, the
update agent, the fleet commands and status) is ``table_controller.table.fleet``; the
director's is ``table_controller.director.fleet``.

The face is these modules, imported as ``from table_controller.fleet import sealing`` or
``from table_controller.fleet.sealing import seal``: it loads none of them itself, so
the unit's guard, run with ``python -I`` before the table, loads only ``update`` and
nothing of the join or the broker.
"""

__all__ = ["discovery", "orders", "sealing", "update", "update_order"]
