"""The live table page: a Starlette server, pushed by Server-Sent Events, that is also
the kiosk's touchscreen (docs/table-page.md); the door every web listener's request
passes (guard.py: the table's page, the join page and the director's), who may enter
what (roles.py) and the operator's PIN (pin.py). The page's snapshot of a game and its
sentences are in ``present/``, below the table.

Nothing is imported here: the roles and the PIN are pure and cheap, and importing them
must not load Starlette and uvicorn (web/server.py)."""
