"""Text pictures of a game: the terminal screen, the score table, what a seat knows.

This package sits on top of the core and below both the command line
(:mod:`troedler.cli`) and the adapters (:mod:`troedler.adapters`), which
both draw positions as text; see :mod:`troedler.text.render`.
"""
