"""The command line and its views: solve, plan, diff, table, apply-script, explain, demo, generate."""
