"""The live table page: a Starlette server, pushed by Server-Sent Events, that is also
the kiosk's touchscreen (docs/table-page.md); the page's snapshot of a game (view.py),
who may enter what (roles.py) and the operator's PIN (pin.py).

Nothing is imported here: the snapshot, the roles and the PIN are pure and cheap, and
importing them must not load Starlette and uvicorn (web/server.py)."""
