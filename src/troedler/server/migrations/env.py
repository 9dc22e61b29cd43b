"""Alembic's environment: the server hands it an open connection
(``config.attributes["connection"]``), so migrations run on the server's
own engine, SQLite or PostgreSQL alike."""

from __future__ import annotations

from alembic import context
from alembic.config import Config

from troedler.server.store import metadata


def run_migrations(config: Config) -> None:
    """Run the migrations on the connection the server passed."""
    connection = config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("the server's migrations run with the server's connection")
    context.configure(connection=connection, target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()


# Alembic runs this file as a script; imported otherwise (a doctest collector
# walking the package), there is no migration context and nothing to do.
try:
    _config: Config | None = context.config
except AttributeError:
    _config = None
if _config is not None:
    run_migrations(_config)
