"""The web table: live matches, replays and tournaments in a browser (docs/web.md)."""
