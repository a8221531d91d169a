package host

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/ht"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func spawn(t *testing.T, c *CPU, name string, core int, prog Program) *Proc {
	t.Helper()
	p, err := c.Spawn(name, core, prog)
	require.NoError(t, err)
	return p
}

// Costs that observe nothing advance the process clock without an event: the MMIO
// store after 1us of computation is sent at time zero with a 1us delay, and nothing is
// left to deliver.
func TestComputeThenMMIOWriteNeedsNoEvent(t *testing.T) {
	c := New(DefaultParams())
	spawn(t, c, "p", 0, func(p *Proc) {
		p.Compute(actors.Microsecond)
		p.MMIOWrite(ht.TXDMA, 16, label("cmd"))
		p.MMIOWrite(ht.TXDMA, 16, nil)
	})
	h, out := actorstest.NewHarness("host", c, 1)
	require.Len(t, out, 2)
	assert.Equal(t, actors.Duration(actors.Microsecond), out[0].Delay)
	assert.Equal(t, ht.NewWrite(ht.TXDMA, 16, label("cmd")), out[0].Msg)
	assert.Equal(t, actors.Time(actors.Microsecond+50*actors.Nanosecond), out[1].At, "after one MMIO store")
	assert.Zero(t, h.Pending())
	assert.True(t, c.Procs()[0].done)
	assert.Equal(t, actors.Time(actors.Microsecond+100*actors.Nanosecond), c.Procs()[0].Now())
}

func TestWaitForAndForget(t *testing.T) {
	c := New(DefaultParams())
	var got []string
	spawn(t, c, "p", 0, func(p *Proc) {
		m := p.WaitFor(0x10)
		got = append(got, fmt.Sprintf("%s %s", p.Now(), m))
		m = p.WaitFor(0x10) // already there: one cache miss
		got = append(got, fmt.Sprintf("%s %s", p.Now(), m))
		p.Forget(0x10)
		_, ok := p.Peek(0x10)
		got = append(got, fmt.Sprintf("%s %v", p.Now(), ok))
		m = p.WaitFor(0x10)
		got = append(got, fmt.Sprintf("%s %s", p.Now(), m))
	})
	h, _ := actorstest.NewHarness("host", c, 1)
	h.Inject(actors.Time(actors.Microsecond), PortBus, record{0x10, "a"})
	h.Inject(actors.Time(2*actors.Microsecond), PortBus, record{0x10, "b"})
	h.Run(actors.MaxTime)
	assert.Equal(t, []string{"1.1us record(0x10 a)", "1.2us record(0x10 a)", "1.2us false", "2.1us record(0x10 b)"}, got)
	m, ok := c.Memory(0x10)
	assert.True(t, ok)
	assert.Equal(t, record{0x10, "b"}, m)
	assert.Equal(t, int64(2), c.Stats.Notices)
}

// An interrupt's handler (InterruptCost + its Charge) delays a process computing on
// core 0 by its whole duration, but not one on another core.
func TestInterruptDelaysComputationOnCoreZero(t *testing.T) {
	p := DefaultParams()
	p.Cores = 2
	c := New(p)
	c.HandleInterrupts(once(func(k *Kernel, _ int) { k.Charge(500 * actors.Nanosecond) }))
	var reads []actors.Time
	prog := func(p *Proc) {
		p.Compute(10 * actors.Microsecond)
		p.MMIORead(8)
	}
	spawn(t, c, "core0", 0, prog)
	spawn(t, c, "core1", 1, prog)
	h, _ := actorstest.NewHarness("host", c, 1)
	h.Inject(actors.Time(actors.Microsecond), PortBus, ht.Interrupt{Vector: 1})
	for _, s := range h.Run(actors.MaxTime) {
		reads = append(reads, s.At)
	}
	assert.Equal(t, []actors.Time{actors.Time(10 * actors.Microsecond), actors.Time(12500 * actors.Nanosecond)}, reads)
	assert.Equal(t, int64(1), c.Stats.Interrupts)
	assert.Equal(t, 2500*actors.Nanosecond, c.Stats.InterruptTime)
	c.Finish()
}

func TestFatalfInsideProgramBecomesAPanic(t *testing.T) {
	c := New(DefaultParams())
	spawn(t, c, "bad", 0, func(p *Proc) {
		p.Compute(actors.Microsecond)
		p.Fatalf("cannot go on: %d", 7)
	})
	msg := actorstest.Catch(func() { actorstest.NewHarness("host", c, 1) })
	assert.Equal(t, "bad: cannot go on: 7", msg)
	assert.NotPanics(t, c.Finish)

	// Under an engine, the same failure is a SimError at the host.
	g := actors.NewGraph()
	c = New(DefaultParams())
	spawn(t, c, "bad", 0, func(p *Proc) {
		p.MMIORead(8) // an event, so that the failure happens inside the run
		p.Fatalf("giving up")
	})
	rh, re := g.Add("n.host", c), g.Add("n.echo", &echo{})
	g.Connect(rh.Port("bus"), re.Port("host"), actors.Nanosecond)
	m, err := g.Build()
	require.NoError(t, err)
	_, err = actors.Run(context.Background(), m, actors.Options{Engine: actors.Serial})
	var se *actors.SimError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.Equal(t, "n.host", se.Actor)
	assert.Equal(t, "bad: giving up", se.Msg)
	assert.Equal(t, actors.Time(2*actors.Nanosecond), se.Time)
}

// echo answers MMIO reads at once.
type echo struct{}

func (*echo) Ports() []string { return []string{"host"} }
func (*echo) Receive(ctx actors.Context, m actors.Msg) {
	if r, ok := m.(ht.Read); ok {
		ctx.Send(0, ht.ReadDone{Bytes: r.Bytes, Tag: r.Tag}, 0)
	}
}

// Finish releases the coroutines of processes that never returned: their goroutines
// end (iter.Pull runs each coroutine on a goroutine of its own).
func TestFinishReleasesCoroutines(t *testing.T) {
	settle := func(max int) int {
		n := runtime.NumGoroutine()
		for i := 0; i < 100 && n > max; i++ {
			time.Sleep(5 * time.Millisecond)
			n = runtime.NumGoroutine()
		}
		return n
	}
	before := settle(0)
	var cpus []*CPU
	for range 20 {
		c := New(DefaultParams())
		for i := range 5 {
			spawn(t, c, fmt.Sprint(i), 0, func(p *Proc) {
				p.Compute(actors.Nanosecond)
				p.WaitFor(0x1) // forever
			})
		}
		actorstest.NewHarness("host", c, 1)
		cpus = append(cpus, c)
	}
	assert.GreaterOrEqual(t, runtime.NumGoroutine(), before+100, "one goroutine per blocked process")
	for _, c := range cpus {
		c.Finish()
		c.Finish() // idempotent
	}
	assert.LessOrEqual(t, settle(before+2), before+2)
}

func TestSpawnOnMissingCoreIsAnError(t *testing.T) {
	c := New(DefaultParams())
	_, err := c.Spawn("p", 1, func(*Proc) {})
	assert.EqualError(t, err, "host: process p on core 1, but the host has 1 cores")
	_, err = c.Spawn("p", -1, func(*Proc) {})
	assert.Error(t, err)
}

func TestUnexpectedMessagesAreFatal(t *testing.T) {
	c := New(DefaultParams())
	ctx := actorstest.New("host", 1)
	assert.Equal(t, "host: unexpected host.label (x)", actorstest.Catch(func() { ctx.Deliver(c, 0, PortBus, label("x")) }))
	assert.Equal(t, "host: interrupt 2 with no handler installed",
		actorstest.Catch(func() { ctx.Deliver(c, 0, PortBus, ht.Interrupt{Vector: 2}) }))
}

func TestParamsValidate(t *testing.T) {
	require.NoError(t, DefaultParams().Validate())
	for key, mut := range map[string]func(*Params){
		"clock":            func(p *Params) { p.Clock = 0 },
		"cores":            func(p *Params) { p.Cores = 0 },
		"os":               func(p *Params) { p.OS = "unix" },
		"trap_cost":        func(p *Params) { p.CacheMiss = -1 },
		"memcpy_bandwidth": func(p *Params) { p.MemcpyBandwidth = 0 },
	} {
		p := DefaultParams()
		mut(&p)
		assert.ErrorContains(t, p.Validate(), key)
	}
}

// nic plays the SeaStar behind the real HT link: a store of "ping" into its SRAM is
// answered with a record in host memory and, for every second ping, an interrupt.
type nic struct{ pings int }

func (n *nic) Ports() []string { return []string{"ht"} }
func (n *nic) Receive(ctx actors.Context, m actors.Msg) {
	if m != label("ping") {
		return
	}
	n.pings++
	ctx.Send(0, &ht.Write{To: ht.Host, Bytes: 16, Payload: record{uint64(0x100 + n.pings), "pong"}}, 200*actors.Nanosecond)
	if n.pings%2 == 0 {
		ctx.Send(0, ht.Interrupt{Vector: n.pings}, 300*actors.Nanosecond)
	}
}

// runPingPong runs two processes ping-ponging with a NIC over the real HT link and
// returns the run report and what the processes saw.
func runPingPong(t *testing.T, opts actors.Options) (*actors.Report, []string) {
	g := actors.NewGraph()
	p := DefaultParams()
	p.Cores = 2
	c := New(p)
	var log []string
	c.HandleInterrupts(once(func(k *Kernel, v int) {
		k.Charge(actors.Duration(v) * 100 * actors.Nanosecond)
		k.Store(uint64(0x200+v), label("irq"))
		log = append(log, fmt.Sprintf("%s irq %d", k.Now(), v))
	}))
	for core := range 2 {
		spawn(t, c, fmt.Sprint("p", core), core, func(pr *Proc) {
			for i := range 4 {
				pr.Compute(actors.Duration(100*(core+1)) * actors.Nanosecond)
				pr.MMIOWrite(ht.PPC, 8, label("ping"))
				pr.MMIORead(8)
				m := pr.WaitFor(uint64(0x101 + 2*i + core))
				log = append(log, fmt.Sprintf("%s %s got %s", pr.Now(), pr.Name, m))
			}
		})
	}
	rh, rl, rn := g.Add("n.host", c), g.Add("n.ht", ht.New(new(ht.DefaultParams()))), g.Add("n.ppc", &nic{})
	g.Connect(rh.Port("bus"), rl.Port("host"), actors.Nanosecond)
	g.Connect(rl.Port("ppc"), rn.Port("ht"), actors.Nanosecond)
	g.Unconnected(rl.Port("txdma"))
	g.Unconnected(rl.Port("rxdma"))
	m, err := g.Build()
	require.NoError(t, err)
	rep, err := actors.Run(context.Background(), m, opts)
	require.NoError(t, err)
	return rep, log
}

// The same program gives the same history twice, and under the serial and the
// parallel engine with one partition per actor.
func TestDeterministicAcrossRunsAndEngines(t *testing.T) {
	r1, l1 := runPingPong(t, actors.Options{Engine: actors.Serial})
	r2, l2 := runPingPong(t, actors.Options{Engine: actors.Serial})
	r3, l3 := runPingPong(t, actors.Options{Engine: actors.Parallel, Workers: 2, Partitioner: actors.Block{}})
	assert.Equal(t, r1.Digest, r2.Digest)
	assert.Equal(t, r1.Digest, r3.Digest)
	assert.Equal(t, l1, l2)
	assert.Equal(t, l1, l3)
	assert.Len(t, l1, 8+4)
}

// once makes a handler that has one item to handle per interrupt: h runs on the first
// call of a pass, and the next call ends the pass.
func once(h func(k *Kernel, v int)) IRQHandler {
	done := false
	return func(k *Kernel, v int) bool {
		if done {
			done = false
			return false
		}
		done = true
		h(k, v)
		return true
	}
}

// index is a Superseded payload: it counts how often host memory let go of it.
type index struct {
	addr uint64
	v    int
	gone *int
}

func (x *index) String() string  { return fmt.Sprintf("index(%d)", x.v) }
func (x *index) Address() uint64 { return x.addr }
func (x *index) Superseded()     { *x.gone++ }

// Host memory lets go of a Superseded payload when a later write to its address
// replaces it or a process forgets the address, and only then.
func TestSupersededPayloadsAreLetGo(t *testing.T) {
	c := New(DefaultParams())
	var a, b, d int
	var seen []int
	spawn(t, c, "p", 0, func(p *Proc) {
		p.WaitFor(0x20)
		p.Compute(2 * actors.Microsecond) // b replaces a meanwhile
		m, _ := p.Peek(0x20)
		seen = append(seen, m.(*index).v, a, b)
		p.Forget(0x20)
		seen = append(seen, b)
	})
	h, _ := actorstest.NewHarness("host", c, 1)
	h.Inject(actors.Time(actors.Microsecond), PortBus, &index{0x20, 1, &a})
	h.Inject(actors.Time(2*actors.Microsecond), PortBus, &index{0x20, 2, &b})
	h.Inject(actors.Time(5*actors.Microsecond), PortBus, &index{0x30, 3, &d})
	h.Run(actors.MaxTime)
	assert.Equal(t, []int{2, 1, 0, 1}, seen, "a let go when b landed; b when forgotten")
	assert.Zero(t, d, "an entry nothing replaced or forgot is kept")
}

// The interrupt handler's Forget lets go of a Superseded payload as a process's does.
func TestHandlerForgetLetsGo(t *testing.T) {
	c := New(DefaultParams())
	var a int
	c.HandleInterrupts(once(func(k *Kernel, _ int) { k.Forget(0x20) }))
	h, _ := actorstest.NewHarness("host", c, 1)
	h.Inject(actors.Time(actors.Microsecond), PortBus, &index{0x20, 1, &a})
	h.Inject(actors.Time(2*actors.Microsecond), PortBus, ht.Interrupt{Vector: 1})
	h.Run(actors.MaxTime)
	_, held := c.Memory(0x20)
	assert.False(t, held)
	assert.Equal(t, 1, a, "let go when the handler forgot it")
}

// The fields a resume reads come first in a Proc and end within its first 64 bytes
// (the two lines the CPU names for prefetching cover them wherever the object lies).
func TestProcResumeFieldsComeFirst(t *testing.T) {
	ty := reflect.TypeOf(Proc{})
	for i, name := range []string{"tok", "now", "ctx", "next", "yield", "Core", "done", "listed", "expired"} {
		assert.Equal(t, name, ty.Field(i).Name)
	}
	last, _ := ty.FieldByName("expired")
	assert.LessOrEqual(t, last.Offset+last.Type.Size(), uintptr(64))
}
