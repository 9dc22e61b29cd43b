"""Which server process owns a match, and until when: its lease.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the owner's name and address and the lease's end."""
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("owner", sa.String(64), nullable=True))
        batch.add_column(sa.Column("owner_address", sa.String(200), nullable=True))
        batch.add_column(sa.Column("lease_until", sa.Float, nullable=True))


def downgrade() -> None:
    """Drop them."""
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("lease_until")
        batch.drop_column("owner_address")
        batch.drop_column("owner")
