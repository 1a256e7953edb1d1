"""The compiled part of the build: everything else is declared in pyproject.toml.

``dungeon._fastcore`` (exact MaxSAT on trap problems, breadth-first hop tables) is optional:
when it cannot be built or imported, the pure Python path runs instead (see dungeon/sat.py).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "dungeon._fastcore",
            sources=["dungeon/_fastcore.c"],
            extra_compile_args=["-O2", "-std=c99"],
            optional=True,
        )
    ]
)
