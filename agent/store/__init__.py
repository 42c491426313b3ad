"""Data on disk: atomic writes (atomic), where a project's data lives (project_dirs), session lines too
large to resume whole (long_lines), crash-test fault points (faults). session.py stands on it.
May import agent/text/ and the shared modules."""
