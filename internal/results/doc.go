// Package results is the results of the simulator's commands, in one schema: rows
// (a benchmark's measurements, Row), the tidy table every command writes and prints
// (Set.Tidy: one record per point, row and metric, swept keys in base SI units), its
// units (units.csv), the aggregation of replicates (aggregate.csv: mean, standard
// deviation and 95% confidence interval), the files of a results directory written
// atomically, and the figures: metrics against the message size, against each swept
// key, or any column against any metric (DrawXY, for run plot). docs/results.md
// documents the files for users. The package knows no benchmark and no engine: the
// commands in cmd/run fill a Set and call WriteFiles.
//
// A results directory holds everything needed to read, check and reproduce a run:
//
//	config.yaml            the resolved configuration (of a sweep: its base, without the
//	                       swept values); a valid --config input
//	run.json               how the run was made and went: command line, simulator
//	                       version, seed, digest, status, and per point its values,
//	                       status, digest and the engine report of every simulation
//	                       (wall-clock times are here and only here)
//	results.csv            tidy results: one line per point x row x metric (see Set.Tidy)
//	results.json           the same records as a JSON array of objects
//	units.csv              the unit of every numeric swept key (base SI: s, Hz, B, B/s)
//	                       and of every metric whose name carries one (latency_us: us)
//	latency_vs_size.png    plots, for benchmarks whose rows have size_bytes and
//	latency_vs_size.svg    latency_us or bandwidth_MBps: log2 size axis, one line per
//	bandwidth_vs_size.png  combination of swept values (and of identifying fields
//	bandwidth_vs_size.svg  other than size_bytes)
//	points/N/              run sweep only, one per point N: config.yaml, rows.json
//	                       (its rows and identity), report.json (its run.json entry),
//	                       and done, written last: a point with done is finished and
//	                       --resume keeps it
//
// results.csv and results.json hold only deterministic values: the same sweep gives
// the same files whatever --jobs, --workers, --engine or --partition are.
package results

// File names in a results directory, and the key of the root seed in a sweep.
const (
	ResultsCSV  = "results.csv"
	ResultsJSON = "results.json"
	UnitsCSV    = "units.csv"
	// PlotsDir holds a sweep's figures against its swept keys.
	PlotsDir = "plots"
	// SeedKey is the --vary key that varies the root seed rather than a parameter:
	// several seeds are replicates (Set.Aggregate).
	SeedKey = "seed"

	dirPerm  = 0o755
	filePerm = 0o644
)
