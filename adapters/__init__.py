"""Every edge of placement-solver: upstream objects <-> the neutral model, manifests, the command line."""
