"""The live table page: a Starlette server, pushed by Server-Sent Events, that is also
the kiosk's touchscreen (docs/table-page.md)."""

from table_controller.web.server import PageError, Refusal, TablePage

__all__ = ["PageError", "Refusal", "TablePage"]
