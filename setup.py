"""The compiled solver (table_controller/bots/_solver.c), built when a C compiler is here.

Everything else is in pyproject.toml. ``optional=True``: a machine without a compiler (or
Python's headers) still installs, and search.py falls back to the pure-Python solver.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "table_controller.bots._solver",
            sources=["table_controller/bots/_solver.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
