"""``python -m table_controller``: the same command as ``table-controller``. The fleet's
service runs it this way, with PYTHONPATH naming the release in use (fleet/update.py)."""

from table_controller.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
