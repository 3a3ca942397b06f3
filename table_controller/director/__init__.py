"""The tournament director's service: every table's feed stored, alerts raised, rulings
signed and sent back, and the dashboard (docs/director.md).

At the top, what puts the director together: ``cli.py`` (``table-controller
director``), ``start.py`` (``director start``: a whole event from one folder),
``release.py``, ``settings_example.py``; ``service.py`` (the feed's subscriber, with
``table_trust.py``); ``web.py`` (the web server, a composition: it builds each
feature, asks it for its routes, puts them behind the guard of every web listener,
web/guard.py, in its own words and limits, ``door.py``, and serves them; with
``listeners.py`` and ``https_redirect.py``); ``session.py`` (the one login every
feature's routes are handed, with ``logins.py``); and ``words.py``, the director's
words, which every folder speaks.

One folder per feature, each entered only through its face, its ``__init__.py``
(tests/test_layers.py holds it): ``store/``, ``dashboard/``, ``hall/``, ``tournament/``,
``fleet/`` and ``demo/``; each web feature serves its own routes from its ``web.py``.
docs/architecture.md draws them.
"""
