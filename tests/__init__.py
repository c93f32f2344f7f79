"""The test suites (tests/meson.build); the Python ones run with python3 -m tests.run."""
