"""A team's logout count (``teams.logouts``): its login cookies are signed with it, so a logout
ends every login of the team made before it, copies of the cookie included.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("teams", sa.Column("logouts", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("teams") as batch:
        batch.drop_column("logouts")
