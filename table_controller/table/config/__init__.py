"""The table's configuration: what a table.toml says (``model``), read with every
problem named at once (``reader``), written back or as the example (``toml``), and the
``config`` commands (``cli``, loaded only when asked).

The rest of the package takes what it needs from here."""

from table_controller.table.config.model import (
    DEFAULT_PLAYERS,
    DOCS,
    FLEET_ALONE,
    PLAYER_MAX,
    CameraConfig,
    ConfigError,
    ConfigProblem,
    FeedConfig,
    FleetConfig,
    KioskConfig,
    TableConfig,
    WebConfig,
    check_files,
    demo_config,
    load_config,
    parse_config,
)
from table_controller.table.config.toml import example_config, fleet_example_config, to_toml

__all__ = [
    "DEFAULT_PLAYERS",
    "DOCS",
    "FLEET_ALONE",
    "PLAYER_MAX",
    "CameraConfig",
    "ConfigError",
    "ConfigProblem",
    "FeedConfig",
    "FleetConfig",
    "KioskConfig",
    "TableConfig",
    "WebConfig",
    "check_files",
    "demo_config",
    "example_config",
    "fleet_example_config",
    "load_config",
    "parse_config",
    "to_toml",
]
