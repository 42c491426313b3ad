"""The tools the model calls (builtin) and what confines them: the workspace (workspace), the writes
that need the user's yes (write_guard), the regex worker (grep_worker), shell commands (shell), @mentions.
May import agent/state/ and every part below it; never agent/compaction/ or agent/turn/."""
