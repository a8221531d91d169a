package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/hugepages"
)

// Limits that keep a run from being one that cannot finish or cannot fit: refused up
// front with the reason, rather than an hour of simulation or the Go runtime's
// out-of-memory crash.

// maxMessage is the largest message a benchmark simulates: a message moves packet by
// packet (64 bytes), so 1 GiB is already 16 M packets and tens of minutes of wall time.
const maxMessage = actors.GiB

// checkSize refuses a message size above maxMessage, naming the flag.
func checkSize(flag string, size int64) error {
	if size > int64(maxMessage) {
		return usage(fmt.Errorf("%s: %s is above the largest simulated message, %s (a message is simulated packet by packet: "+
			"%s is %d packets of 64 B)", flag, actors.Bytes(size), maxMessage, actors.Bytes(size), size/64))
	}
	return nil
}

// Memory a model needs per simulated node: peak resident memory over nodes as measured
// (BENCHMARKS.md), with a quarter more for other machines' allocators and timing
// (measuredPart takes it off again).
const (
	// motifNodeBytes: halo3d with 8 KiB faces took 481 MiB on 16x16x16 (120 KiB a node)
	// and 1,156 MiB on Red Storm's 10,368 nodes (114 KiB); 1 KiB faces 471 MiB on
	// 16x16x16.
	motifNodeBytes = 150 << 10
	// trafficNodeBytes: the router network alone, 16x16x16: 156-161 MiB for 4,096
	// nodes (40 KiB a node).
	trafficNodeBytes = 50 << 10
)

// checkMemory refuses a model of nodes nodes that needs more memory than the machine
// has available (Linux: MemAvailable; elsewhere it does not check), naming both. Unless
// the environment sets GOGC, it sets the garbage collector's target for the model's size
// (gcPercentFor), and it records the size of a model it accepts for reserveHugePages.
func checkMemory(what string, nodes int, perNode int64) error {
	need := int64(nodes) * perNode
	setGCTarget(need)
	avail, ok := availableMemory()
	if !ok || need <= avail {
		noteModel(need)
		return nil
	}
	return usage(fmt.Errorf("%s on %d nodes needs about %s of memory (%s per node, measured with a quarter more), and this machine has %s available: "+
		"use a smaller --torus (or free memory)", what, nodes, gib(need), actors.Bytes(perNode), gib(avail)))
}

// gcSlackBytes is how much garbage a large model's heap may gather between two
// collections: the collector's target (GOGC) of a model estimated to need more than
// gcSlackBytes*100/gcPercent is lowered from gcPercent so that its heap grows by about
// this much, down to gcPercentMin. A model is a large graph that lives for the whole run
// and allocates little per event, so collecting more often costs little: Red Storm's
// halo3d (8 KiB faces, one worker, then 3.2 GiB estimated: GOGC 25) peaked at
// 1,661-1,676 MiB in 80-92 s (two runs) against 1,889-1,908 MiB in 89-90 s at GOGC 50;
// since the calendar's buckets share their large arrays (1.5 GiB estimated: GOGC
// 33), 1,180 MiB in 73.8 s at GOGC 33 against 1,156 MiB in 73.2 s at GOGC 25
// (BENCHMARKS.md; wall time varies by 10% between runs on the machine measured).
const (
	gcSlackBytes = 512 << 20
	gcPercentMin = 25
)

// setGCTarget sets the garbage collector's target for a model estimated to need need
// bytes (0: not known yet), unless the environment sets GOGC.
func setGCTarget(need int64) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercentFor(need))
	}
}

// gcPercentFor is the garbage collector's target for a model estimated to need need
// bytes: gcPercent for small models, less for large ones (gcSlackBytes).
func gcPercentFor(need int64) int {
	if need <= 0 {
		return gcPercent
	}
	return int(max(gcPercentMin, min(gcPercent, 100*gcSlackBytes/need)))
}

// runGCTarget sets the collector's target for the run about to start, once its model is
// built, and returns what restores the target before it. A large model's heap keeps
// growing while it runs: its queues, pools and FIFOs reach their largest sizes node by
// node (Red Storm's halo3d, 8 KiB faces: the live heap grew from about 690 to 994 MB,
// with under 10% garbage), so the size-set target (gcPercentFor) collected twice during
// the run, marking a gigabyte each time. When the run's workers fill the cores (workers
// >= GOMAXPROCS) that marking, its assists and the write barrier it turns on are taken
// from the workers: Red Storm on two workers of a 2-core machine ran 20.6-24.9 s
// without those collections against 23.3-27.0 s with them (seven alternating pairs,
// medians 22.4 and 24.9 s; BENCHMARKS.md), 41-49 s of CPU against 47-53 s. The target
// is then raised so that the next collection comes when the heap reaches the memory the
// model was admitted with (need: modelNeed, checkMemory), if that is later than the
// current target's (gcPercentForRun). With a core idle the collector marks there almost
// for free, and the memory it frees is reused where fresh memory would be touched for
// the first time: Red Storm on one worker ran 4-16% slower without collections (three
// pairs), so the target is left as it is. Unless the environment sets GOGC. workers
// counts the run's engine workers on this machine (machineWorkers): the processes of a
// run across processes that share a machine fill its cores between them.
func runGCTarget(workers int, need int64) (restore func()) {
	restore = func() {}
	if os.Getenv("GOGC") != "" || workers < runtime.GOMAXPROCS(0) {
		return restore
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return restore
	}
	cur := int(s[1].Value.Uint64())
	if pct := gcPercentForRun(need, int64(s[0].Value.Uint64()), cur); pct != cur {
		debug.SetGCPercent(pct)
		restore = func() { debug.SetGCPercent(cur) }
	}
	return restore
}

// runGC sets the collector's target of the runs of one model at a time (a benchmark, a
// sweep's points one by one) with runGCTarget: its hook goes in Options.OnLayout, called
// once a run's model is built, and end restores the target before it.
type runGC struct{ restore func() }

// hook returns the Options.OnLayout of runs with workers workers a process, across the
// processes of cl (nil for a run in one process): the workers on this machine
// (machineWorkers) decide.
func (g *runGC) hook(workers int, cl *actors.Cluster) func(actors.Layout) {
	workers = machineWorkers(workers, cl)
	return func(actors.Layout) {
		g.end()
		g.restore = runGCTarget(workers, modelNeed.Load())
	}
}

// end restores the target the last run found.
func (g *runGC) end() {
	if g.restore != nil {
		g.restore()
		g.restore = nil
	}
}

// gcPercentForRun is the collector's target for a run whose model was estimated to
// need need bytes, with live bytes of heap marked live by the last collection, under
// target cur: the target whose next collection comes at need bytes of heap, if above
// cur, else cur (a model estimated too small keeps the usual target).
func gcPercentForRun(need, live int64, cur int) int {
	if need <= 0 || live <= 0 || live >= need {
		return cur
	}
	return max(cur, int(100*(need-live)/live))
}

// availableMemory reads MemAvailable from /proc/meminfo.
func availableMemory() (int64, bool) {
	v, ok := procField("/proc/meminfo", "MemAvailable")
	if !ok {
		return 0, false
	}
	kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(v, "kB")), 10, 64)
	return kb << 10, err == nil
}

// modelNeed is the memory the largest model this process has set up is estimated to
// need (checkMemory; a sweep's points, a worker's sessions), 0 if none estimated it.
var modelNeed atomic.Int64

// noteModel raises modelNeed to need.
func noteModel(need int64) {
	for {
		old := modelNeed.Load()
		if need <= old || modelNeed.CompareAndSwap(old, need) {
			return
		}
	}
}

// hugePagesMin is the smallest model for which reserveHugePages asks for huge pages:
// a few times what an L2 TLB of 2,048 entries reaches with 4 KiB pages (8 MiB), above
// which a model's scattered reads miss the TLB as they miss the caches.
const hugePagesMin = 64 << 20

// reserveHugePages asks the kernel to back the models about to be built, models of them
// at once, with transparent huge pages, if --huge-pages is on and a model is large
// enough (package hugepages: Red Storm 8-26% faster on one worker; nothing happens
// where the kernel uses huge pages always or never, or outside Linux), and has what
// one model will take faulted in ahead on a goroutine (measuredPart of its estimate).
// One model only: a sweep's points other than its largest take less, and resident
// memory must not grow beyond what checkMemory accepted.
func (c *common) reserveHugePages(models int) {
	if need := modelNeed.Load(); c.hugePages && need >= hugePagesMin {
		hugepages.Reserve(need*int64(max(models, 1)), measuredPart(need))
	}
}

// measuredPart is what a model estimated at need bytes was measured to take: the
// estimate without the quarter more the per-node figures carry (motifNodeBytes,
// trafficNodeBytes).
func measuredPart(need int64) int64 { return need * 4 / 5 }

// gib prints a memory size in GiB with one decimal.
func gib(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }

// machineWorkers is the number of engine workers a run with workers workers a process
// has on this machine: this process's, and as many for each other process of a run
// across processes (cl, nil for a run in one process) on the same machine
// (Cluster.OnThisMachine). Every process of a run takes the coordinator's --workers;
// without it each takes its own GOMAXPROCS, which fills its machine alone. Two processes
// of one worker on a 2-core machine each left their collector a core that the other's
// worker was using: halo3d 16x16x16 collected twice in each process while it ran, and
// ran about 4% faster without those collections (median ratio 0.954 over 20 alternating
// pairs, 16 of them faster; BENCHMARKS.md, thirty-fourth session).
func machineWorkers(workers int, cl *actors.Cluster) int {
	if cl == nil {
		return workers
	}
	return workers * cl.OnThisMachine()
}
