"""Alembic's migrations of the server's database, applied at startup."""
