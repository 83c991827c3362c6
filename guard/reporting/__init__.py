"""Renderers: each returns text or a rich renderable; only the CLI writes."""
