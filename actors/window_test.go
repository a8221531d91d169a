package actors

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Property: leaders, filled by several reporters and merged, name the earliest event
// (t1, of partition p1) and the earliest event of any other partition (t2), as a search
// over all the events does; a partition may appear in several reporters.
func TestLeadersMergeMatchesSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 2000 {
		parts, reporters := 1+r.IntN(5), 1+r.IntN(4)
		earliest := make([]Time, parts)
		for i := range earliest {
			earliest[i] = MaxTime
		}
		reps := make([]leaders, reporters)
		for i := range reps {
			reps[i] = newLeaders()
		}
		for range r.IntN(12) {
			at, p := Time(r.IntN(20)), int32(r.IntN(parts))
			earliest[p] = min(earliest[p], at)
			reps[r.IntN(reporters)].add(at, p)
		}
		got := newLeaders()
		for _, l := range reps {
			got.merge(l)
		}
		t1, t2 := MaxTime, MaxTime
		for _, at := range earliest {
			if at < t1 {
				t1, t2 = at, t1
			} else {
				t2 = min(t2, at)
			}
		}
		require.Equal(t, t1, got.t1)
		require.Equal(t, t2, got.t2)
		if t1 < MaxTime {
			require.Equal(t, t1, earliest[got.p1], "p1 holds the earliest event")
		}
		if t2 < MaxTime {
			require.NotEqual(t, got.p1, got.p2)
			require.Equal(t, t2, earliest[got.p2], "p2 holds the second")
		}
	}
}

// A solo window runs one partition until nothing else can reach it: with no other
// partition having an event within a lookahead, until the others' earliest event plus a
// lookahead, shortened by its sends.
func TestLeadersWindow(t *testing.T) {
	l := newLeaders()
	l.add(100, 3)
	end, solo := l.window(10, MaxTime)
	assert.Equal(t, MaxTime, end, "alone in the model: until it sends")
	assert.Equal(t, int32(3), solo)
	l.add(150, 1)
	end, solo = l.window(10, MaxTime)
	assert.Equal(t, Time(160), end)
	assert.Equal(t, int32(3), solo)
	end, solo = l.window(10, 130)
	assert.Equal(t, Time(130), end, "the run's end bounds it")
	assert.Equal(t, int32(3), solo)
	l.add(105, 2)
	end, solo = l.window(10, MaxTime)
	assert.Equal(t, Time(110), end, "another partition within a lookahead: a plain window")
	assert.Equal(t, int32(-1), solo)
	end, solo = l.window(10, 110)
	assert.Equal(t, Time(110), end)
	assert.Equal(t, int32(-1), solo)
}

// turnTaker answers every message after a chain of local steps: a ping-pong between two
// partitions in which one partition works while the other waits.
type turnTaker struct {
	steps  int      // local steps before answering
	step   Duration // between local steps
	rounds int      // messages to send
	state  uint64
}

func (a *turnTaker) Ports() []string { return []string{"peer"} }

func (a *turnTaker) Start(ctx Context) {
	if ctx.Name() == "n[0].p" {
		ctx.SendSelf(tok{0}, 0)
	}
}

func (a *turnTaker) Receive(ctx Context, m Msg) {
	v := m.(tok).v
	a.state = mix64(a.state ^ v ^ uint64(ctx.Now()))
	switch {
	case ctx.Port() == 0: // from the peer: start the chain
		ctx.SendSelf(tok{uint64(a.steps)}, a.step)
	case v > 0:
		ctx.SendSelf(tok{v - 1}, a.step)
	case a.rounds > 0:
		a.rounds--
		ctx.Send(0, tok{a.state}, 0)
	}
}

func pingPong(t testing.TB, rounds int) *Model {
	g := NewGraph()
	a := g.Add("n[0].p", &turnTaker{steps: 20, step: 3 * Nanosecond, rounds: rounds})
	b := g.Add("n[1].p", &turnTaker{steps: 20, step: 3 * Nanosecond, rounds: rounds})
	g.Link(a.Port("peer"), b.Port("peer"), 10*Nanosecond)
	g.Link(b.Port("peer"), a.Port("peer"), 10*Nanosecond)
	m, err := g.Build()
	require.NoError(t, err)
	return m
}

// A ping-pong whose partitions take turns runs a window per message crossing (plus the
// start), where windows of one lookahead would need seven (70 ns of work and flight per
// crossing, 10 ns lookahead); it delivers what the serial engine delivers, in one
// process and across two.
func TestSoloWindowsFollowAPingPong(t *testing.T) {
	const rounds = 50
	serial, err := Run(t.Context(), pingPong(t, rounds), Options{Engine: Serial})
	require.NoError(t, err)
	crossings := uint64(2 * rounds)
	for _, sync := range []SyncMode{SyncWindow, SyncAuto} {
		rep, err := Run(t.Context(), pingPong(t, rounds), Options{Workers: 2, Partitioner: Node{}, Sync: sync})
		require.NoError(t, err)
		require.Equal(t, serial.Digest, rep.Digest, sync)
		require.Equal(t, serial.Events, rep.Events, sync)
		if sync == SyncWindow {
			assert.LessOrEqual(t, rep.Windows, crossings+3, "about one window per crossing")
			assert.Greater(t, rep.MeanWindow, 30*Nanosecond, "windows longer than the lookahead")
		}
	}
	c := newTestCluster(t, 1)
	res := c.run(func(int) *Model { return pingPong(t, rounds) }, Options{Workers: 1, Partitioner: Node{}}, 1)
	for p, runs := range res {
		require.Len(t, runs, 1)
		require.NoError(t, runs[0].err, "process %d", p)
		assert.Equal(t, serial.Digest, runs[0].rep.Digest, "process %d", p)
		assert.LessOrEqual(t, runs[0].rep.Windows, crossings+3, "process %d", p)
	}
}

// A process takes one report of each window from each other process: a second report
// of the window, one of an older window and a report it cannot decode are errors naming
// the peer; a report of the next window waits for that window. A report that the
// reporter runs partitions ahead rules out a solo window next.
func TestExchangeRefusesBadReports(t *testing.T) {
	m := pingPong(t, 1)
	r := &prun{m: m, owner: []int32{0, 1}, parts: []*partition{{}, {}}}
	d := &distRun{cl: &Cluster{addrs: []string{"127.0.0.1:1", "127.0.0.1:2"}}, r: r, procs: 2}
	report := func(w uint64, p1 int64, ahead bool) *frame {
		var e Encoder
		e.Time(40)
		e.Int(p1)
		e.Time(MaxTime)
		e.Int(-1)
		e.Time(0)  // no solo window
		e.Uint(12) // events
		e.Bool(ahead)
		encodeErr(&e, nil)
		e.Time(0) // an empty batch
		return &frame{kind: fDone, from: 1, w: w, body: e.Bytes()}
	}
	x := newExchange(d)
	require.NoError(t, x.report(report(0, 1, false)))
	assert.Equal(t, 1, x.reports)
	assert.False(t, x.anyAhead)
	assert.Equal(t, Time(40), x.lead.t1)
	assert.Equal(t, int32(1), x.lead.p1)
	assert.Equal(t, uint64(12), x.events[1])
	err := x.report(report(0, 1, false))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "worker 127.0.0.1:2 (process 1) reported window 0 again")
	require.NoError(t, x.report(report(1, 1, false)), "the next window's report is held")
	assert.Len(t, x.early, 1)
	assert.Equal(t, 1, x.reports)

	x = newExchange(d)
	require.NoError(t, x.report(report(0, 1, true)))
	assert.True(t, x.anyAhead)

	x = newExchange(d)
	err = x.report(report(0, 7, false))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "corrupt report of window 0 from worker 127.0.0.1:2 (process 1)")
	assert.Contains(t, err.Error(), "partition 7 of 2")
	assert.Zero(t, x.reports)
	x.w = 3
	err = x.report(report(1, 1, false))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "during window 3")
}

// chain sends itself a message every step until it has sent n; its peer does nothing.
type chain struct {
	n    int
	step Duration
}

func (a *chain) Ports() []string { return []string{"peer"} }
func (a *chain) Start(ctx Context) {
	if a.n > 0 {
		ctx.SendSelf(tok{}, a.step)
	}
}
func (a *chain) Receive(ctx Context, _ Msg) {
	if a.n--; a.n > 0 {
		ctx.SendSelf(tok{}, a.step)
	}
}

// Progress reports the simulated time reached while one partition runs alone and the
// other has nothing to do (it used to report the idle partition's last window: 0).
func TestProgressFollowsASoloPartition(t *testing.T) {
	const n = 5_000_000
	g := NewGraph()
	a := g.Add("n[0].a", &chain{n: n, step: Nanosecond})
	b := g.Add("n[1].b", &chain{})
	g.Link(a.Port("peer"), b.Port("peer"), 10*Nanosecond)
	m, err := g.Build()
	require.NoError(t, err)
	var last Progress
	reports := 0
	rep, err := Run(t.Context(), m, Options{Workers: 2, Partitioner: Node{}, Sync: SyncWindow, ProgressEvery: time.Millisecond,
		Progress: func(p Progress) { last, reports = p, reports+1 }})
	require.NoError(t, err)
	require.Equal(t, uint64(n), rep.Events)
	require.Positive(t, reports, "5 million events take more than a millisecond")
	assert.Positive(t, last.Now, "the time the running partition reached")
	assert.LessOrEqual(t, last.Now, Time(n)*Time(Nanosecond))
}

// The partitions that run ahead while the reports of a window travel are those with no
// link to or from another process (a ring of eight across two processes: the two in
// the middle of each half), and none when direct sends can reach any partition.
func TestInteriorPartitions(t *testing.T) {
	ring := func(direct bool) *prun {
		g := NewGraph()
		ringGraph(g, 8, "n[%d].p", func() Actor { return ported("next", "prev") })
		if direct {
			g.SetDirectLatency(10 * Nanosecond)
		}
		m, err := g.Build()
		require.NoError(t, err)
		r := &prun{m: m, owner: []int32{0, 1, 2, 3, 4, 5, 6, 7}}
		r.parts = make([]*partition, 8)
		return r
	}
	procOf := []int32{0, 0, 0, 0, 1, 1, 1, 1}
	assert.Equal(t, []bool{false, true, true, false, false, true, true, false}, interiorParts(ring(false), procOf))
	assert.Equal(t, make([]bool, 8), interiorParts(ring(true), procOf))

	// Another process's event for one of them is refused (it may be running ahead,
	// past the event's time); one for a partition it links to is taken.
	r := ring(false)
	for i := range r.parts {
		r.parts[i] = &partition{}
		r.parts[i].inMin.Store(int64(MaxTime))
	}
	d := &distRun{cl: &Cluster{addrs: []string{"127.0.0.1:1", "127.0.0.1:2"}}, r: r, procs: 2, procOf: procOf,
		interior: interiorParts(r, procOf), bridge: &partition{}, open: make([]*batch, 8)}
	batch := func(dst ActorID) *Decoder {
		var e Encoder
		e.Time(100)
		e.Int(5)
		e.Uint(uint64(dst))
		e.Uint(7) // from n[7], in process 1
		e.Uint(1)
		e.Int(0)
		e.Value(tok{3})
		require.NoError(t, e.err)
		return NewDecoder(e.Bytes())
	}
	err := d.absorb(batch(1), 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "process 1 sent an event to n[1].p, which no link from another process reaches")
	require.NoError(t, d.absorb(batch(0), 1))
	assert.Equal(t, int64(105), r.parts[0].inMin.Load())
}

// ringNode passes a token to the next node of a ring every step and mixes what it
// receives into its state.
type ringNode struct {
	state uint64
	step  Duration
}

func (*ringNode) Ports() []string { return []string{"next", "prev"} }

func (a *ringNode) Start(ctx Context) { ctx.SendSelf(tok{1}, a.step) }

func (a *ringNode) Receive(ctx Context, m Msg) {
	a.state = mix64(a.state ^ m.(tok).v ^ uint64(ctx.Now()))
	if ctx.Port() == SelfPort {
		ctx.Send(0, tok{a.state}, 0)
		ctx.SendSelf(tok{a.state >> 1}, a.step)
	}
}

// tokenRing builds n ringNodes a[0]..a[n-1] joined in a ring by cables of 10 ns.
func tokenRing(t testing.TB, n int) *Model {
	g := NewGraph()
	ringGraph(g, n, "a[%d]", func() Actor { return &ringNode{step: 3 * Nanosecond} })
	m, err := g.Build()
	require.NoError(t, err)
	return m
}

// ringGraph adds n actors made by mk to g, actor i named by the format name, each one's
// "next" port linked to the following one's "prev" (the last's to the first's) by a
// cable of 10 ns.
func ringGraph(g *Graph, n int, name string, mk func() Actor) {
	nodes := make([]Ref, n)
	for i := range n {
		nodes[i] = g.Add(fmt.Sprintf(name, i), mk())
	}
	for i, a := range nodes {
		g.Connect(a.Port("next"), nodes[(i+1)%n].Port("prev"), 10*Nanosecond)
	}
}

// Across two processes, the partitions of a ring with no cable to the other process
// run ahead while the reports travel, and the run delivers what the serial engine
// delivers; in one process nothing runs ahead.
func TestPartitionsRunAheadAcrossProcesses(t *testing.T) {
	const nodes = 10 // one partition each: a[1]..a[3] and a[6]..a[8] are interior
	opts := Options{End: Time(2 * Microsecond), Partitioner: Node{}}
	serial, err := Run(t.Context(), tokenRing(t, nodes), Options{Engine: Serial, End: opts.End})
	require.NoError(t, err)
	opts.Workers = 2
	one, err := Run(t.Context(), tokenRing(t, nodes), opts)
	require.NoError(t, err)
	require.Equal(t, serial.Digest, one.Digest)
	assert.Zero(t, one.AheadRuns)
	assert.Nil(t, one.ProcessBusy, "one process: no per-process busy time")

	c := newTestCluster(t, 1)
	for _, w := range []int{1, 2} {
		opts.Workers = w
		res := c.run(func(int) *Model { return tokenRing(t, nodes) }, opts, 1)
		var ahead []uint64
		for p, runs := range res {
			require.Len(t, runs, 1)
			require.NoError(t, runs[0].err, "process %d", p)
			assert.Equal(t, serial.Digest, runs[0].rep.Digest, "process %d, %d workers", p, w)
			assert.Equal(t, serial.Events, runs[0].rep.Events, "process %d, %d workers", p, w)
			ahead = append(ahead, runs[0].rep.AheadRuns)
			// Each process's partitions were busy for some of the run, and never for
			// longer than its workers' wall time; both processes report both.
			busy := runs[0].rep.ProcessBusy
			require.Len(t, busy, 2, "process %d", p)
			for k, b := range busy {
				assert.Positive(t, b, "process %d's view of process %d", p, k)
				assert.LessOrEqual(t, b, time.Duration(w)*runs[0].rep.Wall, "process %d's view of process %d", p, k)
			}
		}
		// Every window of 10 ns after the first, each process's three interior
		// partitions have a token to pass in the next one.
		assert.Greater(t, ahead[0], uint64(2*3*100), "%d workers", w)
		assert.Equal(t, ahead[0], ahead[1], "every process reports the run's total")
	}
}
