package actors

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type note string

func (n note) String() string { return string(n) }

// delivery is what a recorder saw.
type delivery struct {
	At   Time
	Port Port
	Msg  string
}

// recorder records its deliveries and runs an optional script at Start.
type recorder struct {
	ports []string
	start func(ctx Context)
	recv  func(ctx Context, m Msg)
	got   []delivery
}

func (r *recorder) Ports() []string { return r.ports }
func (r *recorder) Start(ctx Context) {
	if r.start != nil {
		r.start(ctx)
	}
}
func (r *recorder) Receive(ctx Context, m Msg) {
	r.got = append(r.got, delivery{ctx.Now(), ctx.Port(), m.String()})
	if r.recv != nil {
		r.recv(ctx, m)
	}
}

// engines lists the engine configurations every behavioural test runs under.
func engines() map[string]Options {
	return map[string]Options{
		"serial":                  {Engine: Serial},
		"parallel/auto/1":         {Workers: 1},
		"parallel/auto/2/window":  {Workers: 2, Sync: SyncWindow},
		"parallel/auto/2/horizon": {Workers: 2, Sync: SyncHorizon},
		"parallel/block":          {Workers: 2, Partitioner: Block{}},
		"parallel/node/window":    {Workers: 3, Partitioner: Node{}},
		"parallel/node/horizon":   {Workers: 8, Partitioner: Node{}, Sync: SyncHorizon},
	}
}

func forEachEngine(t *testing.T, f func(t *testing.T, opts Options)) {
	for name, opts := range engines() {
		t.Run(name, func(t *testing.T) { f(t, opts) })
	}
}

func mustRun(t *testing.T, g *Graph, opts Options) *Report {
	t.Helper()
	m, err := g.Build()
	require.NoError(t, err)
	rep, err := Run(context.Background(), m, opts)
	require.NoError(t, err)
	return rep
}

// Delivery time is send time + link latency + extra delay; the receiver learns the
// port; SendSelf and SendTo arrive on the pseudo-ports.
func TestDeliveryTimesAndPorts(t *testing.T) {
	forEachEngine(t, func(t *testing.T, opts Options) {
		g := NewGraph()
		a := &recorder{ports: []string{"out"}, start: func(ctx Context) {
			ctx.Send(0, note("link"), 5*Nanosecond)
			ctx.SendSelf(note("timer"), 7*Nanosecond)
			ctx.SendTo(1, note("direct"), 0)
		}}
		b := &recorder{ports: []string{"in"}}
		ra, rb := g.Add("a", a), g.Add("b", b)
		g.Link(ra.Port("out"), rb.Port("in"), 10*Nanosecond)
		g.SetDirectLatency(3 * Nanosecond)
		rep := mustRun(t, g, opts)
		assert.Equal(t, []delivery{{Time(7 * Nanosecond), SelfPort, "timer"}}, a.got)
		assert.Equal(t, []delivery{{Time(3 * Nanosecond), NoPort, "direct"}, {Time(15 * Nanosecond), 0, "link"}}, b.got)
		assert.Equal(t, uint64(3), rep.Events)
		assert.Equal(t, Time(15*Nanosecond), rep.SimTime)
	})
}

// Same-time events are ordered by (time, destination, source, per-source sequence),
// whatever the order in which they were sent.
func TestSameTimeOrderIsByKey(t *testing.T) {
	forEachEngine(t, func(t *testing.T, opts Options) {
		g := NewGraph()
		sink := &recorder{ports: []string{"in"}}
		rs := g.Add("z.sink", sink)
		for i, name := range []string{"c.src", "a.src", "b.src"} {
			delay := Duration(2-i) * Nanosecond // c sends latest in the model's own logic
			src := &recorder{ports: []string{"out"}, start: func(ctx Context) {
				ctx.SendSelf(note("go"), delay)
			}, recv: func(ctx Context, _ Msg) {
				at := Time(10 * Nanosecond).Sub(ctx.Now())
				ctx.Send(0, note(ctx.Name()+"#0"), at-4*Nanosecond)
				ctx.Send(0, note(ctx.Name()+"#1"), at-4*Nanosecond)
			}}
			g.Link(g.Add(name, src).Port("out"), rs.Port("in"), 4*Nanosecond)
		}
		mustRun(t, g, opts)
		var order []string
		for _, d := range sink.got {
			require.Equal(t, Time(10*Nanosecond), d.At)
			order = append(order, d.Msg)
		}
		assert.Equal(t, []string{"a.src#0", "a.src#1", "b.src#0", "b.src#1", "c.src#0", "c.src#1"}, order)
	})
}

// A timer sent later in a place reserved earlier (Reserve, SendSelfAt) orders among the
// actor's events of its time as a SendSelf made at the reservation would have: before
// those sent after the reservation, after those sent before it.
func TestReservedTimerTakesItsPlace(t *testing.T) {
	forEachEngine(t, func(t *testing.T, opts Options) {
		g := NewGraph()
		var place Reservation
		a := &recorder{start: func(ctx Context) {
			ctx.SendSelf(note("before"), 10*Nanosecond)
			place = ctx.Reserve()
			ctx.SendSelf(note("after"), 10*Nanosecond)
			ctx.SendSelf(note("arm"), 4*Nanosecond)
		}, recv: func(ctx Context, m Msg) {
			if m.String() == "arm" {
				ctx.SendSelfAt(place, note("reserved"), Time(10*Nanosecond))
			}
		}}
		g.Add("a", a)
		mustRun(t, g, opts)
		assert.Equal(t, []delivery{
			{Time(4 * Nanosecond), SelfPort, "arm"},
			{Time(10 * Nanosecond), SelfPort, "before"},
			{Time(10 * Nanosecond), SelfPort, "reserved"},
			{Time(10 * Nanosecond), SelfPort, "after"},
		}, a.got)
	})
}

func TestEndBoundsTheRun(t *testing.T) {
	forEachEngine(t, func(t *testing.T, opts Options) {
		g := NewGraph()
		tick := &recorder{start: func(ctx Context) { ctx.SendSelf(note("tick"), Nanosecond) },
			recv: func(ctx Context, m Msg) { ctx.SendSelf(m, Nanosecond) }}
		g.Add("clock", tick)
		opts.End = Time(10 * Nanosecond)
		rep := mustRun(t, g, opts)
		assert.Len(t, tick.got, 9) // 1ns .. 9ns; the event at 10ns is not delivered
		assert.Equal(t, uint64(9), rep.Events)
		assert.Equal(t, Time(10*Nanosecond), rep.SimTime)
	})
}

func runErr(t *testing.T, g *Graph, opts Options) error {
	t.Helper()
	m, err := g.Build()
	require.NoError(t, err)
	_, err = Run(context.Background(), m, opts)
	require.Error(t, err)
	return err
}

// A Fatalf ends the run with an error naming actor and simulated time, the same under
// every engine; when several actors fail, the first failure in key order wins.
func TestFatalfNamesActorAndTime(t *testing.T) {
	forEachEngine(t, func(t *testing.T, opts Options) {
		g := NewGraph()
		for i, at := range []Duration{9, 5, 5, 7} {
			g.Add(Indexed("node", i)+".ppc", &recorder{
				start: func(ctx Context) { ctx.SendSelf(note("x"), at*Nanosecond) },
				recv:  func(ctx Context, _ Msg) { ctx.Fatalf("heartbeat stopped (%d)", i) },
			})
		}
		err := runErr(t, g, opts)
		var se *SimError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, "node[1].ppc", se.Actor)
		assert.Equal(t, Time(5*Nanosecond), se.Time)
		assert.Equal(t, "node[1].ppc at t=5ns: heartbeat stopped (1)", err.Error())
		assert.Empty(t, se.Stack)
	})
}

func TestPanicBecomesSimError(t *testing.T) {
	forEachEngine(t, func(t *testing.T, opts Options) {
		g := NewGraph()
		g.Add("bad", &recorder{start: func(ctx Context) { ctx.SendSelf(note("x"), 2*Nanosecond) },
			recv: func(Context, Msg) { panic("index out of range") }})
		var se *SimError
		require.ErrorAs(t, runErr(t, g, opts), &se)
		assert.Equal(t, "bad at t=2ns: panic: index out of range", se.Error())
		assert.Contains(t, se.Stack, "engine_test.go")
	})
}

func TestKernelRuleViolationsFailTheRun(t *testing.T) {
	cases := map[string]struct {
		ports []string
		start func(ctx Context)
		want  string
	}{
		"send on unconnected port": {[]string{"wrap"}, func(ctx Context) { ctx.Send(0, note("x"), 0) },
			"a at t=0s: send on port wrap, which has no outgoing link"},
		"send on undeclared port": {nil, func(ctx Context) { ctx.Send(3, note("x"), 0) },
			"send on port (invalid), which has no outgoing link"},
		"negative delay": {nil, func(ctx Context) { ctx.SendSelf(note("x"), -1) }, "negative delay -1ps sending x"},
		"direct sends disabled": {nil, func(ctx Context) { ctx.SendTo(0, note("x"), 0) },
			"SendTo used but the graph did not enable direct sends"},
		"timer in a place not reserved": {nil, func(ctx Context) { ctx.SendSelfAt(Reservation{}, note("x"), 0) },
			"SendSelfAt x at 0s: the place was not reserved"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			forEachEngine(t, func(t *testing.T, opts Options) {
				g := NewGraph()
				r := g.Add("a", &recorder{ports: c.ports, start: c.start})
				for _, p := range c.ports {
					g.Unconnected(r.Port(p))
				}
				var se *SimError
				require.ErrorAs(t, runErr(t, g, opts), &se)
				assert.Contains(t, se.Error(), c.want)
			})
		})
	}
}

// The engine refuses to deliver an event into an actor's past.
func TestCausalityViolationIsDetected(t *testing.T) {
	g := NewGraph()
	g.Add("a", &recorder{})
	m, err := g.Build()
	require.NoError(t, err)
	r := &runner{m: m, st: newActorStates(m, 1)}
	r.st[0].clock = Time(10 * Nanosecond)
	e := event{eventKey: makeKey(Time(5*Nanosecond), 0, 0, 0), msg: note("late")}
	se := r.protect(func() { r.deliver(&e) })
	require.NotNil(t, se)
	assert.Contains(t, se.Error(), "a at t=5ns: kernel: causality violation")
}

func TestZeroLatencyAcrossPartitionsIsAConfigError(t *testing.T) {
	g := NewGraph()
	a, b := g.Add("a", ported("x")), g.Add("b", ported("y"))
	g.Connect(a.Port("x"), b.Port("y"), 0)
	err := runErr(t, g, Options{Partitioner: Block{}, Workers: 2})
	assert.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "link a.x -> b.y has zero latency but crosses partitions")

	// The same graph runs when the link stays inside a partition.
	g = NewGraph()
	a, b = g.Add("n.a", ported("x")), g.Add("n.b", ported("y"))
	g.Connect(a.Port("x"), b.Port("y"), 0)
	mustRun(t, g, Options{Partitioner: Node{}, Workers: 2})
}

func TestZeroDirectLatencyWithPartitionsIsAConfigError(t *testing.T) {
	g := NewGraph()
	g.Add("a", &nop{})
	g.Add("b", &nop{})
	g.SetDirectLatency(0)
	err := runErr(t, g, Options{Workers: 2})
	assert.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "lookahead must be > 0")
}

func TestModelRunsOnce(t *testing.T) {
	g := NewGraph()
	g.Add("a", &nop{})
	m, err := g.Build()
	require.NoError(t, err)
	_, err = Run(context.Background(), m, Options{})
	require.NoError(t, err)
	_, err = Run(context.Background(), m, Options{})
	assert.ErrorIs(t, err, ErrConfig)
}

func TestBadOptions(t *testing.T) {
	for name, opts := range map[string]Options{
		"engine":                         {Engine: "quantum"},
		"workers":                        {Workers: -1},
		"end":                            {End: -5},
		"sync":                           {Sync: "telepathy"},
		"horizon without enough workers": {Workers: 1, Partitioner: Block{}, Sync: SyncHorizon},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewGraph()
			g.Add("a", &nop{})
			g.Add("b", &nop{})
			assert.ErrorIs(t, runErr(t, g, opts), ErrConfig)
		})
	}
	_, err := ParsePartitioner("slabby")
	assert.ErrorContains(t, err, `unknown partitioning "slabby"`)
}

func TestCancelledRunIsInterrupted(t *testing.T) {
	forEachEngine(t, func(t *testing.T, opts Options) {
		g := NewGraph()
		for i := range 4 {
			g.Add(Indexed("n", i), &recorder{start: func(ctx Context) { ctx.SendSelf(note("t"), Nanosecond) },
				recv: func(ctx Context, m Msg) { ctx.SendSelf(m, Nanosecond) }})
		}
		g.SetDirectLatency(Nanosecond)
		m, err := g.Build()
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rep, err := Run(ctx, m, opts)
		assert.ErrorIs(t, err, ErrInterrupted)
		if assert.NotNil(t, rep, "the report of what ran") {
			assert.Less(t, rep.SimTime, MaxTime, "the simulated time reached, not the end bound")
		}
	})
}

type spanLog struct{ spans *[]string }

func (spanLog) Sampled(uint64) bool { return true }

func (s spanLog) Span(sp Span) {
	*s.spans = append(*s.spans, fmt.Sprintf("%s %s %s-%s", sp.Name, sp.Attrs[0].Str, sp.Start, sp.End))
}

// The tracing hook is nil when off and per-partition when on.
func TestTracerHook(t *testing.T) {
	build := func(seen *[]bool) *Graph {
		g := NewGraph()
		g.Add("a", &recorder{start: func(ctx Context) {
			*seen = append(*seen, ctx.Tracer() != nil)
			if tr := ctx.Tracer(); tr != nil {
				tr.Span(Span{Trace: 1, Name: "a/start", Actor: ctx.Self(), Start: 0, End: 2, Attrs: []Attr{StrAttr("k", "v")}})
			}
		}})
		return g
	}
	var seen []bool
	mustRun(t, build(&seen), Options{})
	assert.Equal(t, []bool{false}, seen)
	var spans []string
	var parts []int
	mustRun(t, build(&seen), Options{Tracer: func(p int) Tracer { parts = append(parts, p); return spanLog{&spans} }})
	assert.Equal(t, []bool{false, true}, seen)
	assert.Equal(t, []int{0}, parts)
	assert.Equal(t, []string{"a/start v 0s-2ps"}, spans)
}

func TestReportAccounting(t *testing.T) {
	g := NewGraph()
	for i := range 8 {
		g.Add(Indexed("n", i), &recorder{start: func(ctx Context) { ctx.SendTo(ActorID((i+1)%8), note("hop"), 0) },
			recv: func(ctx Context, m Msg) {
				if ctx.Now() < Time(100*Nanosecond) {
					ctx.SendTo((ctx.Self()+1)%8, m, Duration(ctx.Self())*Picosecond)
				}
			}})
	}
	g.SetDirectLatency(4 * Nanosecond)
	rep := mustRun(t, g, Options{Workers: 2, Sync: SyncWindow})
	assert.Equal(t, 2, rep.Partitions)
	assert.Equal(t, 4*Nanosecond, rep.Lookahead)
	assert.Positive(t, rep.Windows)
	assert.GreaterOrEqual(t, rep.MeanWindow, Duration(0))
	assert.LessOrEqual(t, rep.MeanWindow, 4*Nanosecond)
	var sum uint64
	for _, p := range rep.Parts {
		sum += p.Events
		assert.Equal(t, 4, p.Actors)
	}
	assert.Equal(t, rep.Events, sum)
	assert.Len(t, rep.Digest, 16)
	assert.True(t, strings.HasPrefix(rep.String(), "parallel engine, 2 partitions on 2 workers (window)"), rep.String())
}

// tally is a second kind of actor for the events-by-block count: it only counts.
type tally struct{ n int }

func (c *tally) Receive(Context, Msg) { c.n++ }

// The report sums the events by kind of actor, the most first, with the actors of each
// kind, the same under every engine and partitioning and adding up to the events.
func TestReportEventsByBlock(t *testing.T) {
	build := func() *Graph { // actors in name order: a[0..3] are 0 to 3, z[0] and z[1] 4 and 5
		g := NewGraph()
		for i := range 4 {
			g.Add(Indexed("a", i), &recorder{start: func(ctx Context) { ctx.SendTo(ActorID((i+1)%4), note("hop"), 0) },
				recv: func(ctx Context, m Msg) {
					if ctx.Now() < Time(50*Nanosecond) {
						ctx.SendTo((ctx.Self()+1)%4, m, Picosecond)
						if ctx.Self()%2 == 0 {
							ctx.SendTo(4+ctx.Self()/2, m, 0)
						}
					}
				}})
		}
		for i := range 2 {
			g.Add(Indexed("z", i), &tally{})
		}
		g.SetDirectLatency(2 * Nanosecond)
		return g
	}
	var want []BlockEvents
	forEachEngine(t, func(t *testing.T, opts Options) {
		rep := mustRun(t, build(), opts)
		require.Len(t, rep.Blocks, 2)
		assert.Equal(t, "actors.recorder", rep.Blocks[0].Block)
		assert.Equal(t, 4, rep.Blocks[0].Actors)
		assert.Equal(t, "actors.tally", rep.Blocks[1].Block)
		assert.Equal(t, 2, rep.Blocks[1].Actors)
		assert.Greater(t, rep.Blocks[0].Events, rep.Blocks[1].Events)
		assert.Positive(t, rep.Blocks[1].Events)
		assert.Equal(t, rep.Events, rep.Blocks[0].Events+rep.Blocks[1].Events)
		if want == nil {
			want = rep.Blocks
		}
		assert.Equal(t, want, rep.Blocks)
	})
}

// TestActorStateIsALine checks that an actor's engine state, its actor included, fills
// one cache line: delivering an event then reads one line of it, and a large table of
// them (page-aligned by the runtime) has no state across two lines.
func TestActorStateIsALine(t *testing.T) {
	assert.Equal(t, uintptr(actorStateSize), unsafe.Sizeof(actorState{}))
	assert.Zero(t, unsafe.Offsetof(actorState{}.clock), "the first field a delivery reads")
}

type wideActor struct {
	pad [700]byte
}

func (*wideActor) Receive(Context, Msg) {}

type hugeActor struct {
	pad [4096]byte
}

func (*hugeActor) Receive(Context, Msg) {}

// headActor's events read the first 100 bytes of its struct only.
type headActor struct {
	pad [700]byte
}

func (*headActor) Receive(Context, Msg)   {}
func (*headActor) PrefetchBytes() uintptr { return 100 }

type valueActor struct{ x, y int64 }

func (valueActor) Receive(Context, Msg) {}

// TestPrefetchLines checks the lines a partition prefetches of each actor: every line
// its struct spans where it lies, or up to its PrefetchBytes, at most
// maxPrefetchLines, one for an actor held by value.
func TestPrefetchLines(t *testing.T) {
	w, h, hd := &wideActor{}, &hugeActor{}, &headActor{}
	st := []actorState{{actor: w}, {actor: h}, {actor: valueActor{}}, {actor: hd}}
	lines := prefetchLines(st)
	addr := uintptr(unsafe.Pointer(w))
	assert.Equal(t, uint8((addr+699)/64-addr/64+1), lines[0])
	assert.Contains(t, []uint8{11, 12}, lines[0], "700 bytes span 11 lines, 12 if they do not start a line")
	assert.Equal(t, uint8(maxPrefetchLines), lines[1])
	assert.Equal(t, uint8(1), lines[2])
	addr = uintptr(unsafe.Pointer(hd))
	assert.Equal(t, uint8((addr+99)/64-addr/64+1), lines[3])
	assert.Contains(t, []uint8{2, 3}, lines[3], "its first 100 bytes span 2 lines, 3 if they do not start a line")
}

// A partition's prefetch record of an actor holds the address of its first outgoing
// link in the Model's port table and the lines of its struct; its hints start empty.
func TestPrefetchRecs(t *testing.T) {
	g := NewGraph()
	ra := g.Add("a", ported("x", "y"))
	g.Add("b", &wideActor{})
	rc := g.Add("c", ported("z"))
	g.Connect(ra.Port("y"), rc.Port("z"), Nanosecond)
	g.Unconnected(ra.Port("x"))
	m, err := g.Build()
	require.NoError(t, err)
	id := func(name string) ActorID {
		i, ok := m.ID(name)
		require.True(t, ok, name)
		return i
	}
	a, b, c := id("a"), id("b"), id("c")
	st := newActorStates(m, 1)
	recs, lines := newPrefetchRecs(m, st), prefetchLines(st)
	size := unsafe.Sizeof(outLink{})
	assert.Equal(t, uintptr(unsafe.Pointer(&m.out[m.portBase[a]])), recs[a].out)
	assert.Equal(t, uintptr(unsafe.Pointer(&m.out[m.portBase[a]+1])), recs[a].out+size, "a's second port")
	assert.Equal(t, uintptr(unsafe.Pointer(&m.out[m.portBase[c]])), recs[c].out)
	assert.Equal(t, uintptr(unsafe.Pointer(unsafe.SliceData(m.out)))+uintptr(m.portBase[b])*size, recs[b].out, "no port: where its ports would start")
	for _, i := range []ActorID{a, b, c} {
		assert.Equal(t, uintptr(lines[i]), recs[i].lines)
		assert.Zero(t, recs[i].hints)
	}
	assert.Equal(t, uintptr(32), unsafe.Sizeof(prefetchRec{}), "two records to a line")
}

// Prefetch records the calling actor's hint lines where its partition prefetches, and
// is a no-op elsewhere (no table, or a Context that is not the engine's).
func TestPrefetchRecordsHints(t *testing.T) {
	var a, b int64
	r := &runner{pf: make([]prefetchRec, 3), cur: 1}
	Prefetch(r, &a, &b)
	assert.Equal(t, [2]uintptr{uintptr(unsafe.Pointer(&a)), uintptr(unsafe.Pointer(&b))}, r.pf[1].hints)
	assert.Zero(t, r.pf[0])
	Prefetch(r, &a, (*int64)(nil))
	assert.Equal(t, [2]uintptr{uintptr(unsafe.Pointer(&a)), 0}, r.pf[1].hints, "nil: no second line")
	assert.NotPanics(t, func() { Prefetch(&runner{cur: 1}, &a, &b) }, "a partition that does not prefetch")
}

// A reserved place cannot put a timer before the event being handled: it would be
// delivered into the past of the actor's own order.
func TestReservedPlaceBeforeTheCurrentEventIsRefused(t *testing.T) {
	forEachEngine(t, func(t *testing.T, opts Options) {
		g := NewGraph()
		var place Reservation
		g.Add("a", &recorder{start: func(ctx Context) {
			place = ctx.Reserve()
			ctx.SendSelf(note("x"), Nanosecond)
		}, recv: func(ctx Context, m Msg) {
			ctx.SendSelfAt(place, note("y"), ctx.Now()) // its place is before x's, at x's time
		}})
		var se *SimError
		require.ErrorAs(t, runErr(t, g, opts), &se)
		assert.Contains(t, se.Error(), "SendSelfAt y at 1ns: its place comes before the event being handled")
	})
}

// Several runs' events by block add up by kind; a kind's actors are the most any run had.
func TestMergeBlocks(t *testing.T) {
	got := MergeBlocks(
		[]BlockEvents{{Block: "router.Port", Actors: 14, Events: 100}, {Block: "ht.Link", Actors: 2, Events: 40}},
		nil,
		[]BlockEvents{{Block: "ht.Link", Actors: 4, Events: 90}, {Block: "host.CPU", Actors: 4, Events: 10}},
	)
	assert.Equal(t, []BlockEvents{
		{Block: "ht.Link", Actors: 4, Events: 130},
		{Block: "router.Port", Actors: 14, Events: 100},
		{Block: "host.CPU", Actors: 4, Events: 10},
	}, got)
	assert.Nil(t, MergeBlocks())
}
