"""The package's layers point one way, read from the source (scripts/import_graph.py):

- no two modules import each other at run time, directly or around a loop (an import
  under ``if TYPE_CHECKING:`` never runs and does not count; one inside a function does,
  and so do the command groups the command line loads by name);
- in the table and the kiosk not even for the type checker: no circle among their
  modules, type-only imports included (a back reference is typed by a Protocol below
  both: the table's ports, the policy's, the kiosk's);
- the rules core imports nothing of the package but itself, ``cards``, ``seats``,
  ``clip`` and ``errors``, and only the standard library, never its clock, randomness
  or IO;
- the devices know pins and bytes, not the game: nothing from the rules or the table;
- the groups are layered: the rules, the event log, what people read of a game
  (present: words, sentences, the page's snapshot), the parts that stand alone
  (devices, vision, bots, feed, web), the fleet's protocol (discovery, sealing, signed
  orders, updates) and the simulated world in front of a simulated table (sim), the
  table (its side of the fleet in ``table/fleet/``), what runs a table (kiosk,
  director), the command line; each imports only from below it, and parts at one level
  not from each other;
- the table imports nothing of the director, and of web/ only what serving its page
  needs (the server, the door, the roles, the PIN, the stream); its core,
  ``table/core.py``, nothing of web/ at all: its words and the page's snapshot come
  from present/;
- each folder of the director (store, dashboard, hall, tournament and its formats and
  results, fleet, demo), present/ and the simulated world (sim) are entered from
  outside only through their face, their ``__init__.py``, for the type checker too:
  their inner modules are their own business;
- each web feature of the director (dashboard, tournament, hall, fleet) serves its own
  routes from a ``web.py`` of its folder, handed the one login (``director/session.py``);
  the composition (``director/web.py``) takes each through its face, and no feature
  folder imports the composition, the service or the commands that put them together;
- the fleet's two packages, the protocol (``fleet/``) and the table's side
  (``table/fleet/``), are entered from outside only by the modules their face names in
  ``__all__``, and the director takes the protocol, never the table's side.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
import textwrap
from itertools import pairwise
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_walker() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "import_graph", ROOT / "scripts" / "import_graph.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("import_graph", module)
    spec.loader.exec_module(module)
    return module


walker = _load_walker()
GRAPH: dict[str, set[str]] = walker.import_graph()
TYPED_GRAPH: dict[str, set[str]] = walker.import_graph(type_checking=True)
DIRECTOR = "table_controller.director"
# The fleet's protocol, which both sides speak, and the table's side of it.
FLEET_PROTOCOL = "table_controller.fleet"
TABLE_FLEET = "table_controller.table.fleet"
# The table's own folders: its config (a face of names), its page and its log (faces
# that name their modules).
TABLE_CONFIG = "table_controller.table.config"
TABLE_PAGE = "table_controller.table.page"
TABLE_LOG = "table_controller.table.log"
PRESENT = "table_controller.present"
SIM = "table_controller.sim"
REVIEW = "table_controller.review"
# The director's web: the composition that serves every feature's routes, the login they
# are all handed, the folders that serve routes of their own, and every feature folder
# (which the composition and the commands above them put together, never the reverse).
COMPOSITION = f"{DIRECTOR}.web"
SESSION = f"{DIRECTOR}.session"
WEB_FEATURES = ("dashboard", "tournament", "hall", "fleet")
FEATURES = ("store", "dashboard", "tournament", "hall", "fleet", "broker")
ABOVE_FEATURES = (COMPOSITION, f"{DIRECTOR}.service", f"{DIRECTOR}.cli", f"{DIRECTOR}.start")
# The groups whose modules form no circle even through imports made only for types.
NO_TYPE_CIRCLES = {"table", "kiosk"}

# Lowest first. A group is a subpackage or a top-level module of table_controller;
# groups not named here (cards, seats, transcript, ...) are held only by the rule of no
# cycles.
LAYERS: list[set[str]] = [
    {"rules"},
    {"event_log"},
    {"present"},
    {"devices", "vision", "bots", "feed", "web"},
    # the fleet's protocol (both sides speak it); the simulated world; the hand review
    # (above the bots, whose solver judges its decisions; below the table and the director,
    # which serve it)
    {"fleet", "sim", "review"},
    {"table"},  # table/fleet/, the table's side of the fleet, included
    {"kiosk", "director"},
    {"cli"},
]
# What the table takes from web/: serving its pages (the server, the door every request
# passes, who may send what, the operator's PIN, the live stream the join page is
# redrawn by); never the words or the snapshot.
TABLE_MAY_USE_OF_WEB = {
    "table_controller.web",
    "table_controller.web.guard",
    "table_controller.web.pin",
    "table_controller.web.roles",
    "table_controller.web.server",
    "table_controller.web.stream",
}
TABLE_CORE = "table_controller.table.core"
RULES_MAY_IMPORT = {"rules", "cards", "seats", "clip", "errors"}
IMPURE = {
    "asyncio",
    "datetime",
    "os",
    "pathlib",
    "random",
    "secrets",
    "socket",
    "sqlite3",
    "subprocess",
    "threading",
    "time",
}


def group(module: str) -> str:
    """``table_controller.rules.game`` -> ``rules``; ``table_controller.cli`` -> ``cli``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def edges(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted((a, b) for a, targets in graph.items() for b in targets)


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def folders(modules: dict[str, Path], under: str) -> list[str]:
    """The packages below ``under`` (each folder with an ``__init__.py``), ``under`` not
    included."""
    return sorted(
        name
        for name, path in modules.items()
        if path.name == "__init__.py" and name.startswith(under + ".")
    )


def past_the_face(graph: dict[str, set[str]], faces: list[str]) -> list[str]:
    """Each import of a folder's inner module from outside that folder, in words: the
    outermost such folder is named, so a module of ``tournament/results/`` taken from
    ``fleet/`` is reported against ``tournament``, whose face it must go through."""
    wrong = []
    for a, b in edges(graph):
        for face in sorted(faces, key=len):
            if within(b, face) and b != face and not within(a, face):
                wrong.append(
                    f"{a} imports {b}, inside {face}/: import it from {face} (its face), "
                    f"and add the name to {face}'s __all__ if another folder needs it"
                )
                break
    return wrong


def test_the_walker_sees_the_package() -> None:
    assert "table_controller.rules.game" in GRAPH
    assert "table_controller.table.app" in GRAPH["table_controller.kiosk.kiosk"]
    assert "table_controller.table.run_cli" in GRAPH["table_controller.cli"]
    # loaded by name (importlib), from the table of command groups
    assert "table_controller.kiosk.kiosk_cli" in GRAPH["table_controller.cli"]


def test_no_runtime_import_cycle() -> None:
    loops = [" -> ".join(walker.cycle_path(GRAPH, c)) for c in walker.cycles(GRAPH)]
    assert loops == [], "runtime import cycles:\n" + "\n".join(loops)


def test_no_import_circle_in_the_table_or_the_kiosk_type_only_ones_included() -> None:
    modules = walker.module_files()
    inside = {
        name: {
            b
            for b in walker.imports_of(name, path, modules, type_checking=True)
            if group(b) in NO_TYPE_CIRCLES
        }
        for name, path in modules.items()
        if group(name) in NO_TYPE_CIRCLES
    }
    loops = [" -> ".join(walker.cycle_path(inside, c)) for c in walker.cycles(inside)]
    assert loops == [], (
        "import circles in table/ or kiosk/, counting imports under `if TYPE_CHECKING:` "
        "(`python scripts/import_graph.py --type-checking` prints them). Type the back "
        "reference with a Protocol in a module below both (table/ports.py, the policy's "
        "in table/policy.py, the kiosk's in kiosk/port.py) instead of importing the "
        "module that uses it:\n" + "\n".join(loops)
    )


def test_the_rules_core_imports_only_itself_cards_seats_clip_and_errors() -> None:
    wrong = [
        f"{a} imports {b}"
        for a, b in edges(GRAPH)
        if group(a) == "rules" and group(b) not in RULES_MAY_IMPORT
    ]
    assert wrong == []


def test_the_rules_core_is_pure_standard_library() -> None:
    modules = walker.module_files()
    wrong = []
    for name, path in modules.items():
        if group(name) not in RULES_MAY_IMPORT:
            continue
        for outside in sorted(walker.outside_imports(path)):
            if outside not in sys.stdlib_module_names or outside in IMPURE:
                wrong.append(f"{name} imports {outside}")
    assert wrong == []


def test_devices_import_nothing_of_the_rules_or_the_table() -> None:
    wrong = [
        f"{a} imports {b}"
        for a, b in edges(GRAPH)
        if group(a) == "devices" and group(b) in ("rules", "table")
    ]
    assert wrong == []


def test_the_table_imports_nothing_of_the_director_and_of_web_only_its_page() -> None:
    wrong = [
        f"{a} imports {b}"
        for a, b in edges(TYPED_GRAPH)
        if group(a) == "table"
        and (
            group(b) == "director"
            or (group(b) == "web" and (a == TABLE_CORE or b not in TABLE_MAY_USE_OF_WEB))
        )
    ]
    assert wrong == [], (
        "the table reaches above or beside its page: its words and the page's snapshot "
        "are in present/, the director is above it:\n" + "\n".join(wrong)
    )


def test_present_sits_below_the_table_and_the_director() -> None:
    level = {name: i for i, names in enumerate(LAYERS) for name in names}
    assert level["present"] < level["table"] < level["director"]
    assert level["present"] < level["web"]
    users = {group(a) for a, b in edges(GRAPH) if group(b) == "present" and group(a) != "present"}
    assert {"table", "director", "kiosk"} <= users


def test_imports_point_down_the_layers() -> None:
    level = {name: i for i, names in enumerate(LAYERS) for name in names}
    wrong = []
    for a, b in edges(GRAPH):
        ga, gb = group(a), group(b)
        if ga == gb or ga not in level or gb not in level:
            continue
        if level[gb] > level[ga]:
            wrong.append(f"{a} imports {b}, a layer above it")
        elif level[gb] == level[ga]:
            wrong.append(f"{a} imports {b}, a part beside it")
    assert wrong == []


def test_a_director_folder_and_present_are_entered_only_through_their_face() -> None:
    faces = folders(walker.module_files(), DIRECTOR)
    assert {f"{DIRECTOR}.{name}" for name in ("store", "dashboard", "hall", "fleet")} <= set(faces)
    assert f"{DIRECTOR}.tournament.results" in faces
    wrong = past_the_face(TYPED_GRAPH, [*faces, PRESENT])
    assert wrong == [], "a folder entered past its face:\n" + "\n".join(wrong)


def test_each_web_feature_serves_its_own_routes_and_the_composition_puts_them_together() -> None:
    modules = walker.module_files()
    for name in WEB_FEATURES:
        feature = f"{DIRECTOR}.{name}"
        assert f"{feature}.web" in modules, f"{name}/ has no web.py of its own routes"
        assert feature in GRAPH[COMPOSITION], f"director/web.py does not take {name}/'s routes"
        assert SESSION in TYPED_GRAPH[f"{feature}.web"], f"{name}/web.py is not handed the login"
    assert SESSION in GRAPH[COMPOSITION]
    wrong = [
        f"{a} imports {b}: a feature is given what it needs by the composition above it"
        for a, b in edges(TYPED_GRAPH)
        if any(within(a, f"{DIRECTOR}.{name}") for name in FEATURES)
        and any(within(b, above) for above in ABOVE_FEATURES)
    ]
    wrong += [
        f"{a} imports {b}: the login knows no feature"
        for a, b in edges(TYPED_GRAPH)
        if a == SESSION and any(within(b, f"{DIRECTOR}.{name}") for name in WEB_FEATURES)
    ]
    assert wrong == [], "a feature reaches the composition above it:\n" + "\n".join(wrong)


def face_names(package: str) -> set[str]:
    """The names in the ``__all__`` of ``package``'s ``__init__.py``, read with ast."""
    path = walker.module_files()[package]
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            value = ast.literal_eval(node.value)
            return set(value)
    return set()


def test_a_fleet_package_is_entered_only_by_the_modules_its_face_names() -> None:
    """The fleet's two packages, and the table's page and log folders: each face names
    its modules in ``__all__`` without loading them (what one caller needs, it loads
    alone: the page's TLS its cryptography, the unit's guard nothing of the join)."""
    wrong = []
    for package in (FLEET_PROTOCOL, TABLE_FLEET, TABLE_PAGE, TABLE_LOG):
        names = face_names(package)
        assert names, f"{package}/__init__.py names no module in __all__"
        for a, b in edges(TYPED_GRAPH):
            if within(a, package) or not within(b, package) or b == package:
                continue
            if b[len(package) + 1 :].split(".")[0] not in names:
                wrong.append(
                    f"{a} imports {b}, which {package}'s face does not name: add it to "
                    f"{package}'s __all__ if another part needs it"
                )
    assert wrong == [], "a fleet package entered past its face:\n" + "\n".join(wrong)


def test_the_tables_config_is_entered_through_its_face_or_its_command() -> None:
    wrong = [
        line
        for line in past_the_face(TYPED_GRAPH, [TABLE_CONFIG])
        if not line.startswith("table_controller.commands imports ")
        and f" imports {TABLE_CONFIG}.cli," not in line
    ]
    assert wrong == [], "the table's config entered past its face:\n" + "\n".join(wrong)


def test_the_director_takes_the_fleets_protocol_never_the_tables_side() -> None:
    wrong = [
        f"{a} imports {b}: take what both sides speak from {FLEET_PROTOCOL}"
        for a, b in edges(TYPED_GRAPH)
        if within(a, DIRECTOR) and within(b, TABLE_FLEET)
    ]
    assert wrong == [], "the director takes the table's side of the fleet:\n" + "\n".join(wrong)
    assert any(within(a, DIRECTOR) and within(b, FLEET_PROTOCOL) for a, b in edges(GRAPH))


def test_the_simulated_world_is_entered_only_through_its_face() -> None:
    assert SIM in walker.module_files()
    wrong = past_the_face(TYPED_GRAPH, [SIM])
    assert wrong == [], "the simulated world entered past its face:\n" + "\n".join(wrong)


def test_the_hand_review_is_entered_only_through_its_face() -> None:
    assert REVIEW in walker.module_files()
    wrong = past_the_face(TYPED_GRAPH, [REVIEW])
    assert not wrong, f"import the hand review from its face ({REVIEW}): {wrong}"


def test_no_cycle_among_the_groups() -> None:
    groups: dict[str, set[str]] = {}
    for a, b in edges(GRAPH):
        groups.setdefault(group(a), set())
        groups.setdefault(group(b), set())
        if group(a) != group(b):
            groups[group(a)].add(group(b))
    loops = [" -> ".join(walker.cycle_path(groups, c)) for c in walker.cycles(groups)]
    assert loops == []


# --- the walker itself, on a package written for it ------------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": """
                from typing import TYPE_CHECKING

                from pkg import b

                if TYPE_CHECKING:
                    from pkg.c import C

                def later():
                    from .sub import d
            """,
            "b.py": "import json\n",
            "c.py": "from pkg.a import later\n",
            "sub/__init__.py": "from pkg.sub.d import D\n",
            "sub/d.py": "from .. import b\nfrom ..c import x\nD = 1\n",
        },
    )


def test_the_walker_counts_function_imports_not_type_checking_ones(package: Path) -> None:
    graph = walker.import_graph(package)
    # a -> c only under TYPE_CHECKING: not counted; a -> sub.d inside a function: counted,
    # and it runs sub/__init__ too.
    assert graph["pkg.a"] == {"pkg.b", "pkg.sub", "pkg.sub.d"}
    assert graph["pkg.sub.d"] == {"pkg.b", "pkg.c"}  # relative, from a subpackage
    assert graph["pkg.sub"] == {"pkg.sub.d"}
    assert graph["pkg.b"] == set()
    assert walker.outside_imports(package / "b.py", "pkg") == {"json"}
    # with type_checking, a's import of c for the type checker counts too
    assert walker.import_graph(package, type_checking=True)["pkg.a"] == {
        "pkg.b",
        "pkg.c",
        "pkg.sub",
        "pkg.sub.d",
    }
    assert walker.outside_imports(package / "a.py", "pkg") == {"typing"}


def test_the_walker_counts_type_checking_imports_when_asked(package: Path) -> None:
    assert walker.import_graph(package, type_checking=True)["pkg.a"] == {
        "pkg.b",
        "pkg.c",
        "pkg.sub",
        "pkg.sub.d",
    }


def test_a_folder_entered_past_its_face_is_named(package: Path) -> None:
    graph = walker.import_graph(package, type_checking=True)
    faces = folders(walker.module_files(package), "pkg")
    assert faces == ["pkg.sub"]
    # a imports sub.d (inner) from outside sub; sub itself may import its own module.
    assert past_the_face(graph, faces) == [
        "pkg.a imports pkg.sub.d, inside pkg.sub/: import it from pkg.sub (its face), "
        "and add the name to pkg.sub's __all__ if another folder needs it"
    ]


def test_the_walker_finds_a_cycle_and_a_path_around_it(package: Path) -> None:
    graph = walker.import_graph(package)
    # c -> a -> sub.d -> c (a's import of sub.d runs inside a function, but it runs).
    assert walker.cycles(graph) == [["pkg.a", "pkg.c", "pkg.sub", "pkg.sub.d"]]
    path = walker.cycle_path(graph, walker.cycles(graph)[0])
    assert path[0] == path[-1] == "pkg.a"
    assert all(b in graph[a] for a, b in pairwise(path))
