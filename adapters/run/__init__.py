"""Running a batch: the pipeline (load, solve, check, emit), a separable input in parts at once
(forked workers, exact or not at all), and what a run changes on the hub."""
