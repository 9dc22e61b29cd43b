"""Alembic's environment: the server hands it an open connection
(``config.attributes["connection"]``), so migrations run on the server's
own engine, SQLite or PostgreSQL alike."""

from __future__ import annotations

from alembic import context

from troedler.server.store import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only the server runs these migrations
    raise RuntimeError("the server's migrations run with the server's connection")
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
