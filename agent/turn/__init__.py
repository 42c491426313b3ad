"""One user turn: the loop that runs the agent and streams its events (loop), the guard before each
model request (guard), the REPL's warm-up (warmup).
May import every other part of agent/ (it is the top of agent/); never compact.py, ui/ or main.py."""
