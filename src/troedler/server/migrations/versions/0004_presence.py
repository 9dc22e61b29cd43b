"""Who is connected to each match through each server process.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the presence table."""
    op.create_table(
        "presence",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("server", sa.String(64), primary_key=True),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("spectators", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("presence")
