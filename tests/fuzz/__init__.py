"""The seeded session fuzzer (issue 20): long sessions generated from a seed (tests/fuzz/plan.py),
played through the real turn path against the strict emulator with skewed counting
(tests/fuzz/player.py), every request checked by an oracle that reads only what the server saw
(tests/fuzz/oracle.py). docs/fuzz.md says what it generates and checks; bench/fuzz.py runs it long."""
