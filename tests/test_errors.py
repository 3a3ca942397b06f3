"""Every error the package raises on purpose is a ``TableControllerError`` (issue 17: 33
exception classes had no common root), so the command line and the services can tell
"the table said no, in words" from a bug. The cube's frame code is the one exception: it
also runs on the board under MicroPython, where the package is not."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import table_controller
from table_controller.errors import TableControllerError

ON_THE_BOARD = {"table_controller.devices.frame"}  # runs under MicroPython too


def error_classes() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(table_controller.__path__, "table_controller."):
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == info.name:
                found.append(obj)
    return found


def test_every_error_of_the_package_has_one_root() -> None:
    classes = error_classes()
    assert len(classes) > 30
    strays = [
        f"{c.__module__}.{c.__qualname__}"
        for c in classes
        if not issubclass(c, TableControllerError) and c.__module__ not in ON_THE_BOARD
    ]
    assert strays == []


def test_the_root_keeps_the_built_in_bases() -> None:
    """Code that caught ``ValueError`` or ``OSError`` before still does."""
    from table_controller.rules.errors import RulesError
    from table_controller.table.config import ConfigError
    from table_controller.web.server import PageError

    assert issubclass(RulesError, ValueError) and issubclass(ConfigError, ValueError)
    assert issubclass(PageError, OSError)
    error = PageError("port 8080 is taken")
    assert isinstance(error, TableControllerError) and str(error) == "port 8080 is taken"
