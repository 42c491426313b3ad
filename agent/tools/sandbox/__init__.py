"""The OS sandbox the model's commands and the grep workers run in: the policy (policy), which
mechanism this machine has (detect: bubblewrap, Landlock, macOS sandbox-exec, or none), the command
line each builds (bwrap, landlock, seatbelt), the one entry point (confine), what a failure for want
of access looks like (denials) and the offer to run a command again outside (offer).
Part of agent/tools/: may import agent/state/ and every part below it."""
