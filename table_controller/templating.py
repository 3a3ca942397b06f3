"""HTML made from Jinja2 templates (``table_controller/templates/``): the table's score
sheet and the director's results (score sheets, the booklet).

Why templates rather than f-strings: every name on a sheet is text a table or a person
typed ("Bob & Co", a player called ``<script>``), and a template autoescapes all of it
in one place, where an f-string must remember ``escape()`` at each value. The layout
lives in the template; the code gives it words already made (``present/words.py``), never
codes.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from table_controller.pictures import data_uri


def red_suits(text: object) -> Markup:
    """The text escaped, its ♥ and ♦ in red (``<span class="red">``), as on the cards."""
    out = str(escape(text))
    for suit in ("♥", "♦"):
        out = out.replace(suit, f'<span class="red">{suit}</span>')
    return Markup(out)  # every part escaped above


@cache
def environment() -> Environment:
    """The templates, autoescaped (every ``.html``), a missing value an error rather
    than a blank on a printed sheet."""
    env = Environment(
        loader=PackageLoader("table_controller", "templates"),
        autoescape=select_autoescape(("html",), default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["data_uri"] = data_uri
    env.filters["red_suits"] = red_suits
    return env


def render(name: str, **context: Any) -> str:
    """The template ``name`` filled with ``context``."""
    return environment().get_template(name).render(**context)


__all__ = ["data_uri", "environment", "red_suits", "render"]
