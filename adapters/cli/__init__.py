"""The command line and its views: solve, plan, diff, table, apply-script, explain, demo, generate.

Imported before any of its modules: the console script's own process begins reading a large
input here, before the command line's imports (adapters.cli.early; elsewhere it does nothing)."""

from adapters.cli.early import begin

begin()
