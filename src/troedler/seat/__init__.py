"""What one seat knows of a game (I1-I3), and full states consistent with it.

Depends on the core only. Re-exported flat by :mod:`troedler`.
"""
