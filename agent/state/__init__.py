"""The state of one session: AppState, the tools' deps (app), the transcript that owns the history and
the session file (transcript), what the model has read (file_state), checkpoints of changed files (file_history).
May import agent/provider/, agent/tokens/, session.py, agent/store/, agent/text/ and the shared modules."""
