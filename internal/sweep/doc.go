// Package sweep is the mechanics of a parameter sweep, apart from what is swept: the
// --vary lists parsed against the parameter tree (ParseVary; the seed is a list like
// the others), the points they make (Combine: the cartesian product, the first list
// varying slowest, or the lists zipped), a pool that runs points jobs at a time and
// stops at the first fatal error or on cancellation (Run), and the progress bar with
// its ETA (Progress). cmd/run's `run sweep` resolves each point's configuration, runs
// the benchmark on it and writes the results with package results.
package sweep
