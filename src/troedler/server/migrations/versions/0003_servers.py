"""The server processes sharing the database, and the matches each owns.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the servers table, and an index on each match's owner."""
    op.create_table(
        "servers",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("number", sa.Integer, nullable=False, unique=True),
        sa.Column("address", sa.String(200), nullable=True),
        sa.Column("alive_until", sa.Float, nullable=True),
    )
    op.create_index("ix_matches_owner", "matches", ["owner"])


def downgrade() -> None:
    """Drop them."""
    op.drop_index("ix_matches_owner", "matches")
    op.drop_table("servers")
