"""Reading and writing games: move notation, state JSON, the position text and
game records. Text from outside is read without trusting it.

Depends on the core only. Re-exported flat by :mod:`troedler`.
"""
