package ppc

import (
	"context"
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/txdma"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newExec returns an Exec at time zero on a core with parameters p, as a handler sees
// it after dispatch.
func newExec(t *testing.T, p Params) (*Exec, *actorstest.Context) {
	t.Helper()
	require.NoError(t, p.Validate())
	c, err := New(p, &scripted{})
	require.NoError(t, err)
	ctx := actorstest.New("ppc", 1)
	return &Exec{c: c, ctx: ctx}, ctx
}

// The cost of each kind of work in cycles of the 500 MHz PowerPC 440 (Pedretti &
// Hudson 2005 s.2, s.5.1), caches on and off.
func TestCostModelCycles(t *testing.T) {
	for _, tc := range []struct {
		name           string
		icache, dcache bool
		work           func(x *Exec)
		cycles         int64
	}{
		{"instr cached", true, true, func(x *Exec) { x.Instr(100) }, 100},
		{"instr from SRAM", false, true, func(x *Exec) { x.Instr(100) }, 600},
		{"load D-cache hit", true, true, func(x *Exec) { x.Load(10) }, 10},
		{"load D-cache off", true, false, func(x *Exec) { x.Load(10) }, 120},
		{"store D-cache hit", true, true, func(x *Exec) { x.Store(10) }, 10},
		{"store D-cache off", true, false, func(x *Exec) { x.Store(10) }, 20},
		{"uncached load", true, true, func(x *Exec) { x.LoadUncached(10) }, 120},
		{"uncached load, caches off", false, false, func(x *Exec) { x.LoadUncached(10) }, 120},
		{"uncached store", true, true, func(x *Exec) { x.StoreUncached(10) }, 20},
		{"host load: ten SRAM reads", true, true, func(x *Exec) { x.LoadHost(1) }, 10 * 12},
		{"33 bytes of cached host memory: two 32-byte lines", true, true, func(x *Exec) { x.LoadHostCached(33) }, 2 * 10 * 12},
		{"TX command: two stores", true, true, func(x *Exec) { x.TX(txdma.Command{}) }, 4},
		{"PIO of 9 B: 2 + 2 stores", true, true, func(x *Exec) { x.PIO(&txdma.PIO{Bytes: 9}) }, 8},
		{"host write of 17 B: three posted stores", true, true, func(x *Exec) { x.HostWrite(17, nil) }, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			p.ICache, p.DCache = tc.icache, tc.dcache
			x, _ := newExec(t, p)
			tc.work(x)
			assert.Equal(t, tc.cycles, x.cycles)
			assert.Equal(t, actors.Duration(tc.cycles)*2*actors.Nanosecond, x.Elapsed(), "2ns per cycle at 500 MHz")
		})
	}
}

// Work counts each kind of work as charged, whatever the caches: the cycles differ,
// the counts do not.
func TestWorkCountsByKind(t *testing.T) {
	for _, caches := range []bool{true, false} {
		p := DefaultParams()
		p.ICache, p.DCache = caches, caches
		x, _ := newExec(t, p)
		x.Instr(100)
		x.Load(7)
		x.Store(3)
		x.LoadUncached(5)
		x.StoreUncached(2)
		x.LoadHost(1)
		x.HostWrite(17, nil)  // three 8-byte stores
		x.TX(txdma.Command{}) // CommandStores uncached stores
		assert.Equal(t, Work{Instr: 100, Loads: 7, Stores: 3, UncachedLoads: 5, UncachedStores: 2 + int64(p.CommandStores),
			HostLoads: 1, HostStores: 3}, x.c.Work, "caches %v", caches)
		assert.Equal(t, x.c.Work, Work{}.Add(x.c.Work).Sub(Work{}))
	}
}

// Pedretti & Hudson 2005 s.3.3: a trace point costs about 10ns when compiled in and
// nothing when compiled out; only then is a record written.
func TestTracePointCost(t *testing.T) {
	for _, on := range []bool{false, true} {
		p := DefaultParams()
		p.TraceEnabled = on
		x, _ := newExec(t, p)
		x.Instr(1)
		x.Trace("f", 4, 7)
		if on {
			assert.Equal(t, 12*actors.Nanosecond, x.Elapsed())
			assert.Equal(t, []Record{{At: 12000, Func: "f", Offset: 4, Value: 7}}, x.c.Trace().Records())
		} else {
			assert.Equal(t, 2*actors.Nanosecond, x.Elapsed())
			assert.Empty(t, x.c.Trace().Records())
		}
	}
}

// The ring keeps the newest records in order however often it wraps; Total counts
// every record.
func TestTraceRingKeepsNewest(t *testing.T) {
	for _, n := range []int{1, 3, 7} {
		for _, total := range []int{0, 1, n - 1, n, n + 1, 3*n + 2} {
			r := newRing(n)
			for i := range total {
				r.add(Record{At: actors.Time(i)})
			}
			var want []Record
			for i := max(0, total-n); i < total; i++ {
				want = append(want, Record{At: actors.Time(i)})
			}
			got := r.Records()
			if len(want) == 0 {
				assert.Empty(t, got)
			} else {
				assert.Equal(t, want, got, "capacity %d, %d records", n, total)
			}
			assert.Equal(t, int64(total), r.Total())
		}
	}
}

// A command issued inside a handler leaves at the handler time it was issued: after
// the 10-cycle dispatch and 100 instructions, plus its own two register stores.
func TestCommandLeavesAtHandlerTime(t *testing.T) {
	h, _ := actorstest.NewHarness("ppc", mustCore(t, DefaultParams(), &scripted{}), 1)
	h.Inject(actors.Time(actors.Microsecond), PortHT, &job{name: "x", ops: []string{"instr:100", "tx", "instr:50", "tx"}})
	out := h.Run(actors.MaxTime)
	require.Len(t, out, 2)
	poll := 40 * actors.Nanosecond
	assert.Equal(t, actors.Time(actors.Microsecond).Add(poll+(10+100+4)*2*actors.Nanosecond), out[0].At)
	assert.Equal(t, out[0].At.Add((50+4)*2*actors.Nanosecond), out[1].At)
	assert.Equal(t, PortTXDMA, out[0].Port)
}

func mustCore(t *testing.T, p Params, fw Firmware) *Core {
	t.Helper()
	c, err := New(p, fw)
	require.NoError(t, err)
	return c
}

// Pedretti & Hudson 2005 s.4.2: the SRAM holds the source structures and the lower
// pendings, M = S x Ssize + sum(Pi x Psize): 1,024 sources and 1,274 pendings for the
// generic process, "small enough that several more similarly sized pending pools can
// be supported". With sizes assumed at 32 B per source and 64 B per pending (the paper
// gives none), 384 KB - 22 KB image - 8 KB stack = 354 KB hold the sources and four
// pending pools; a fifth does not fit, and the boot error lists every allocation and
// names the one that failed.
func TestBootSRAMBudget(t *testing.T) {
	pools := func(n int) *scripted {
		f := &scripted{allocs: []Allocation{{Name: "sources", Size: 32, Count: 1024}}}
		for i := range n {
			f.allocs = append(f.allocs, Allocation{Name: fmt.Sprintf("pendings[%d]", i), Size: 64, Count: 1274})
		}
		return f
	}
	c, err := New(DefaultParams(), pools(4))
	require.NoError(t, err)
	assert.Len(t, c.SRAM(), 5)
	used := actors.Bytes(0)
	for _, a := range c.SRAM() {
		used += a.Total()
	}
	assert.Equal(t, actors.Bytes(32*1024+4*64*1274), used)

	_, err = New(DefaultParams(), pools(5))
	require.Error(t, err)
	assert.Equal(t, "ppc: firmware structures do not fit in SRAM: pendings[4] needs 79.625KiB but only 3.5KiB is left "+
		"(sram 384KiB - image 22KiB - stack 8KiB); sources 1024 x 32B = 32KiB; pendings[0] 1274 x 64B = 79.625KiB; "+
		"pendings[1] 1274 x 64B = 79.625KiB; pendings[2] 1274 x 64B = 79.625KiB; pendings[3] 1274 x 64B = 79.625KiB; "+
		"pendings[4] 1274 x 64B = 79.625KiB", err.Error())
}

func TestBootRejectsNegativeAllocations(t *testing.T) {
	_, err := New(DefaultParams(), &scripted{allocs: []Allocation{{Name: "x", Size: -1, Count: 1}}})
	assert.ErrorContains(t, err, "allocation x of 1 x -1B is negative")
}

// With tracing compiled in, the trace ring (8-byte records) lives in SRAM too
// (Pedretti & Hudson 2005 s.3.3: a ring buffer in uncached SRAM).
func TestTraceRingTakesSRAM(t *testing.T) {
	p := DefaultParams()
	p.TraceEnabled, p.TraceRecords = true, 4096
	room := p.SRAM - p.Image - p.Stack
	fits := &scripted{allocs: []Allocation{{Name: "data", Size: room - 32*actors.KiB, Count: 1}}}
	c, err := New(p, fits)
	require.NoError(t, err)
	assert.Equal(t, Allocation{Name: "trace ring", Size: 8, Count: 4096}, c.SRAM()[0])
	_, err = New(p, &scripted{allocs: []Allocation{{Name: "data", Size: room - 32*actors.KiB + 1, Count: 1}}})
	assert.ErrorContains(t, err, "trace ring 4096 x 8B = 32KiB")
	p.TraceEnabled = false
	_, err = New(p, &scripted{allocs: []Allocation{{Name: "data", Size: room, Count: 1}}})
	assert.NoError(t, err, "compiled out, the ring takes no SRAM")
}

// The heartbeat never decreases and grows by one per idle pass (80ns by default).
func TestHeartbeatGrowsWithIdleTime(t *testing.T) {
	c := mustCore(t, DefaultParams(), &scripted{})
	h, _ := actorstest.NewHarness("ppc", c, 1)
	h.Inject(actors.Time(10*actors.Microsecond), PortHT, &job{name: "x", ops: []string{"instr:5000"}})
	last := int64(-1)
	for at := actors.Time(0); at < actors.Time(40*actors.Microsecond); at = at.Add(37 * actors.Nanosecond) {
		h.Run(at)
		hb := c.Heartbeat(at)
		assert.GreaterOrEqual(t, hb, last, "at %s", at)
		if at < actors.Time(10*actors.Microsecond) {
			assert.Equal(t, int64(at)/80000, hb, "idle: one per 80ns pass")
		}
		last = hb
	}
	// The 10.02us handler runs from 10.04us: the count stays at 1 + 125 until it ends.
	assert.Equal(t, int64(126), c.Heartbeat(actors.Time(15*actors.Microsecond)))
	assert.Equal(t, int64(126), c.Heartbeat(actors.Time(20060*actors.Nanosecond)))
	// At 40us: 1 + (40 - 10.02)us / 80ns.
	assert.Equal(t, int64(1+374), c.Heartbeat(actors.Time(40*actors.Microsecond)))
}

func TestParamsValidate(t *testing.T) {
	require.NoError(t, DefaultParams().Validate())
	for key, mut := range map[string]func(*Params){
		"clock":           func(p *Params) { p.Clock = 0 },
		"poll_cycles":     func(p *Params) { p.PollCycles = -1 },
		"trace_records":   func(p *Params) { p.TraceRecords = 0 },
		"exceed the sram": func(p *Params) { p.Image = p.SRAM },
	} {
		p := DefaultParams()
		mut(&p)
		assert.ErrorContains(t, p.Validate(), key)
	}
}

// mailbox plays the host: it stores jobs into the PPC's SRAM at fixed times.
type mailbox struct{ jobs []*job }

func (m *mailbox) Ports() []string { return []string{"ppc"} }
func (m *mailbox) Start(ctx actors.Context) {
	for i, j := range m.jobs {
		ctx.Send(0, j, actors.Duration(i*150)*actors.Nanosecond)
	}
}
func (m *mailbox) Receive(ctx actors.Context, msg actors.Msg) {}

// devices records what the PPC sends to the DMA engines and the CAM, and answers every
// TX command with a Done.
type devices struct{ got []string }

func (d *devices) Ports() []string { return []string{"txdma", "rxdma", "cam"} }
func (d *devices) Receive(ctx actors.Context, m actors.Msg) {
	d.got = append(d.got, fmt.Sprintf("%s %s", ctx.Now(), m))
	if _, ok := m.(*txdma.Command); ok {
		ctx.Send(0, txdma.Done{Tag: uint64(len(d.got))}, 100*actors.Nanosecond)
	}
}

// The core with a scripted host and devices gives the same history under the serial
// engine and the parallel engine with one partition per actor.
func TestCoreRunSerialAndParallelAgree(t *testing.T) {
	run := func(opts actors.Options) (*actors.Report, *scripted, *devices) {
		g := actors.NewGraph()
		mb := &mailbox{}
		for i := range 8 {
			mb.jobs = append(mb.jobs, &job{name: fmt.Sprint(i), ops: []string{fmt.Sprintf("instr:%d", 30*i), "tx", "cam", "after:300ns:t", "discard"}})
		}
		fw, dev := &scripted{}, &devices{}
		rm, rp, rd := g.Add("n.host", mb), g.Add("n.ppc", mustCore(t, DefaultParams(), fw)), g.Add("n.dev", dev)
		g.Connect(rm.Port("ppc"), rp.Port("ht"), 5*actors.Nanosecond)
		for _, p := range []string{"txdma", "rxdma", "cam"} {
			g.Connect(rp.Port(p), rd.Port(p), actors.Nanosecond)
		}
		m, err := g.Build()
		require.NoError(t, err)
		rep, err := actors.Run(context.Background(), m, opts)
		require.NoError(t, err)
		return rep, fw, dev
	}
	r1, f1, d1 := run(actors.Options{Engine: actors.Serial})
	r2, f2, d2 := run(actors.Options{Engine: actors.Parallel, Workers: 2, Partitioner: actors.Block{}})
	assert.Equal(t, r1.Digest, r2.Digest)
	assert.Equal(t, f1.log, f2.log)
	assert.Equal(t, d1.got, d2.got)
	assert.Len(t, f1.log, 8+8+8) // jobs, their timers, the Dones
}
