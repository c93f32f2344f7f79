"""The grader, the starters and a worked class."""
