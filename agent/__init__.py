"""The agent core: it never prints nor reads the keyboard; it talks to the UI through agent/events.py.
Its parts, from the top down, each importing only those below it: turn/, compaction/, tools/, state/,
provider/, tokens/, (session.py), store/, text/. The shared modules beside them (config, events, errors,
debuglog) import only each other and text/. tests/test_architecture.py holds these arrows."""
