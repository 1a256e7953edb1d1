"""The ladder's first tables (server/ladder/schema.py as first landed).

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "audit",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.Double(), nullable=False),
        sa.Column("actor", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("detail", sa.Text(), server_default="{}", nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit")),
    )
    op.create_table(
        "auth_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=64), nullable=False),
        sa.Column("at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_auth_failures")),
    )
    op.create_index(
        op.f("ix_auth_failures_source_at"), "auth_failures", ["source", "at"], unique=False
    )

    op.create_table(
        "ladder",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("state", sa.String(length=16), server_default="running", nullable=False),
        sa.Column("settings", sa.Text(), server_default="{}", nullable=False),
        sa.Column("created", sa.Double(), nullable=False),
        sa.Column("changed", sa.Double(), nullable=False),
        sa.CheckConstraint(
            "state IN ('running', 'paused', 'frozen')", name=op.f("ck_ladder_state_known")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladder")),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=8), server_default="queued", nullable=False),
        sa.Column("created", sa.Double(), nullable=False),
        sa.Column("started", sa.Double(), nullable=True),
        sa.Column("finished", sa.Double(), nullable=True),
        sa.Column("worker", sa.String(length=128), nullable=True),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("log_hash", sa.String(length=64), nullable=True),
        sa.Column("replaces", sa.Integer(), nullable=True),
        sa.Column("why", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "state IN ('queued', 'running', 'done', 'failed', 'void')",
            name=op.f("ck_matches_state_known"),
        ),
        sa.ForeignKeyConstraint(
            ["replaces"], ["matches.id"], name=op.f("fk_matches_replaces_matches")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    op.create_index(op.f("ix_matches_state"), "matches", ["state"], unique=False)

    op.create_table(
        "teams",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("members", sa.Text(), server_default="{}", nullable=False),
        sa.Column("created", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_teams")),
        sa.UniqueConstraint("name", name=op.f("uq_teams_name")),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("team_id", sa.Integer(), nullable=True),
        sa.Column("role", sa.String(length=8), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created", sa.Double(), nullable=False),
        sa.Column("revoked", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.CheckConstraint("role IN ('team', 'admin')", name=op.f("ck_tokens_role_known")),
        sa.ForeignKeyConstraint(
            ["team_id"], ["teams.id"], name=op.f("fk_tokens_team_id_teams"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_tokens_token_hash")),
    )
    op.create_table(
        "versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("team_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("program_hash", sa.String(length=64), nullable=True),
        sa.Column("files", sa.Integer(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("command", sa.Text(), nullable=False),
        sa.Column("build", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=16), server_default="checking", nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("build_output_hash", sa.String(length=64), nullable=True),
        sa.Column("preflight_output_hash", sa.String(length=64), nullable=True),
        sa.Column("preflight", sa.Text(), nullable=True),
        sa.Column("source", sa.String(length=8), server_default="cli", nullable=False),
        sa.Column("submitted", sa.Double(), nullable=False),
        sa.Column("checked", sa.Double(), nullable=True),
        sa.CheckConstraint(
            "status IN ('checking', 'active', 'failed', 'inactive', 'retired')",
            name=op.f("ck_versions_status_known"),
        ),
        sa.ForeignKeyConstraint(
            ["team_id"], ["teams.id"], name=op.f("fk_versions_team_id_teams"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_versions")),
        sa.UniqueConstraint("team_id", "number", name=op.f("uq_versions_team_id_number")),
    )
    op.create_index(
        op.f("ix_versions_team_id_status"), "versions", ["team_id", "status"], unique=False
    )

    op.create_table(
        "ratings",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("games", sa.Integer(), server_default="0", nullable=False),
        sa.Column("wins", sa.Integer(), server_default="0", nullable=False),
        sa.Column("draws", sa.Integer(), server_default="0", nullable=False),
        sa.Column("losses", sa.Integer(), server_default="0", nullable=False),
        sa.Column("last_match_id", sa.Integer(), nullable=True),
        sa.Column("changed", sa.Double(), nullable=False),
        sa.ForeignKeyConstraint(
            ["last_match_id"], ["matches.id"], name=op.f("fk_ratings_last_match_id_matches")
        ),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["versions.id"],
            name=op.f("fk_ratings_version_id_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("version_id", name=op.f("pk_ratings")),
    )
    op.create_table(
        "seats",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("points", sa.Double(), nullable=True),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(length=32), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("output_hash", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_seats_match_id_matches"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["version_id"], ["versions.id"], name=op.f("fk_seats_version_id_versions")
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_seats")),
    )
    op.create_index(op.f("ix_seats_version_id"), "seats", ["version_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_seats_version_id"), table_name="seats")

    op.drop_table("seats")
    op.drop_table("ratings")
    op.drop_index(op.f("ix_versions_team_id_status"), table_name="versions")

    op.drop_table("versions")
    op.drop_table("tokens")
    op.drop_table("teams")
    op.drop_index(op.f("ix_matches_state"), table_name="matches")

    op.drop_table("matches")
    op.drop_table("ladder")
    op.drop_index(op.f("ix_auth_failures_source_at"), table_name="auth_failures")

    op.drop_table("auth_failures")
    op.drop_table("audit")
