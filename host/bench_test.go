package host

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/ht"
	"github.com/stretchr/testify/require"
)

// label is a payload for MMIO writes and for what the kernel stores.
type label string

func (l label) String() string { return string(l) }

// record is a NIC write into host memory (an event, a completion record).
type record struct {
	addr uint64
	what string
}

func (r record) String() string  { return fmt.Sprintf("record(%#x %s)", r.addr, r.what) }
func (r record) Address() uint64 { return r.addr }

// logger collects what programs and the interrupt handler observed, for scripts.
type logger struct{ lines []string }

func (l *logger) printf(format string, args ...any) {
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logger) take() string {
	var sb strings.Builder
	for _, s := range l.lines {
		sb.WriteString(s + "\n")
	}
	l.lines = nil
	return sb.String()
}

// program returns a Program running ops in order, each "name" or "name:arg[:arg]":
//
//	compute:D trap:D memcpy:B       spend time
//	write:UNIT:B[:label]            MMIOWrite
//	read:B                          MMIORead
//	wait:ADDR  peek:ADDR  forget:ADDR
//	log                             log the process clock
//	fatal:S                         Fatalf
func program(log *logger, ops []string) Program {
	return func(p *Proc) {
		for _, op := range ops {
			runOp(p, log, op)
		}
		log.printf("%s %s: exit", p.Now(), p.Name)
	}
}

func runOp(p *Proc, log *logger, op string) {
	f := strings.Split(op, ":")
	dur := func(s string) actors.Duration {
		d, err := actors.ParseDuration(s)
		if err != nil {
			p.Fatalf("bad op %q", op)
		}
		return d
	}
	num := func(s string) uint64 {
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			p.Fatalf("bad op %q", op)
		}
		return v
	}
	switch f[0] {
	case "compute":
		p.Compute(dur(f[1]))
	case "trap":
		p.Trap(dur(f[1]))
	case "memcpy":
		p.Memcpy(actors.Bytes(num(f[1])))
	case "memcpy-nic":
		p.MemcpyFromNIC(actors.Bytes(num(f[1])))
	case "write":
		var payload actors.Msg
		if len(f) > 3 {
			payload = label(f[3])
		}
		to := map[string]ht.Unit{"ppc": ht.PPC, "txdma": ht.TXDMA}[f[1]]
		p.MMIOWrite(to, actors.Bytes(num(f[2])), payload)
	case "read":
		p.MMIORead(actors.Bytes(num(f[1])))
		log.printf("%s %s: read returned", p.Now(), p.Name)
	case "wait":
		m := p.WaitFor(num(f[1]))
		log.printf("%s %s: wait %s -> %s", p.Now(), p.Name, f[1], m)
	case "peek":
		m, ok := p.Peek(num(f[1]))
		log.printf("%s %s: peek %s -> %v %v", p.Now(), p.Name, f[1], m, ok)
	case "forget":
		p.Forget(num(f[1]))
	case "log":
		log.printf("%s %s: at", p.Now(), p.Name)
	case "fatal":
		p.Fatalf("%s", f[1])
	default:
		p.Fatalf("unknown op %q", op)
	}
}

// TestCPUScripts runs testdata/*.txt against one host. Commands:
//
//	new [cores=N cache_miss=D interrupt_cost=D mmio_write_cost=D]
//	spawn name=S [core=N] ops=(op,...)          (see program)
//	handler [charge=D] [store=ADDR:S] [write=B]  install the interrupt handler
//	start                                        start the harness (processes run)
//	land addr=N what=S [at=T]                    a NIC write lands in host memory
//	read-done tag=N [at=T]                       an MMIO read returns
//	irq vector=N [at=T]
//	run [until=T]                                outputs, then the log
//	stats
//
// Regenerate with: go test ./host -rewrite (and read the diff).
func TestCPUScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var h *actorstest.Harness
		var c *CPU
		log := &logger{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			at := actorstest.TimeArg(t, d, "at")
			switch d.Cmd {
			case "new":
				if c != nil {
					c.Finish() // release the previous scenario's processes
				}
				c = New(newParams(t, d))
				h = nil
				log.lines = nil
				p := c.Params()
				return fmt.Sprintf("cache miss %s, interrupt %s, mmio write %s, trap %s\n", p.CacheMiss, p.InterruptCost, p.MMIOWriteCost, p.TrapCost)
			case "spawn":
				core := 0
				if d.HasArg("core") {
					d.ScanArgs(t, "core", &core)
				}
				var ops []string
				for _, a := range d.CmdArgs {
					if a.Key == "ops" {
						ops = a.Vals
					}
				}
				if _, err := c.Spawn(actorstest.StrArg(t, d, "name"), core, program(log, ops)); err != nil {
					return "error: " + err.Error() + "\n"
				}
			case "handler":
				installHandler(t, d, c, log)
			case "start":
				var out []actorstest.Sent
				fatal := actorstest.Catch(func() { h, out = actorstest.NewHarness("node[0,0,0].host", c, 1) })
				return output(out, log, fatal, 0)
			case "land":
				h.Inject(at, PortBus, record{addr: uint64(actorstest.IntArg(t, d, "addr", 0)), what: actorstest.StrArg(t, d, "what")})
			case "read-done":
				h.Inject(at, PortBus, ht.ReadDone{Tag: uint64(actorstest.IntArg(t, d, "tag", 0))})
			case "irq":
				h.Inject(at, PortBus, ht.Interrupt{Vector: int(actorstest.IntArg(t, d, "vector", 0))})
			case "run":
				until := actors.MaxTime
				if d.HasArg("until") {
					until = actorstest.TimeArg(t, d, "until")
				}
				var out []actorstest.Sent
				fatal := actorstest.Catch(func() { out = h.Run(until) })
				return output(out, log, fatal, h.Now())
			case "stats":
				s := c.Stats
				return fmt.Sprintf("interrupts %d (%s) notices %d mmio writes %d reads %d\n",
					s.Interrupts, s.InterruptTime, s.Notices, s.MMIOWrites, s.MMIOReads)
			default:
				t.Fatalf("%s: unknown command %s", d.Pos, d.Cmd)
			}
			return ""
		})
		if c != nil {
			c.Finish()
		}
	})
}

func output(out []actorstest.Sent, log *logger, fatal string, now actors.Time) string {
	return actorstest.Trace(out, []string{"bus"}) + log.take() + actorstest.FatalLine(now, fatal)
}

func mustInt(t *testing.T, s string) int64 {
	v, err := strconv.ParseInt(s, 0, 64)
	require.NoError(t, err, s)
	return v
}

func newParams(t *testing.T, d *datadriven.TestData) Params {
	p := DefaultParams()
	for _, a := range d.CmdArgs {
		v := a.Vals[0]
		var err error
		switch a.Key {
		case "cores":
			p.Cores, err = strconv.Atoi(v)
		case "cache_miss":
			p.CacheMiss, err = actors.ParseDuration(v)
		case "interrupt_cost":
			p.InterruptCost, err = actors.ParseDuration(v)
		case "mmio_write_cost":
			p.MMIOWriteCost, err = actors.ParseDuration(v)
		default:
			t.Fatalf("%s: unknown parameter %s", d.Pos, a.Key)
		}
		require.NoError(t, err, a.Key)
	}
	require.NoError(t, p.Validate())
	return p
}

func installHandler(t *testing.T, d *datadriven.TestData, c *CPU, log *logger) {
	var charge actors.Duration
	if s := actorstest.StrArg(t, d, "charge"); s != "" {
		var err error
		charge, err = actors.ParseDuration(s)
		require.NoError(t, err)
	}
	store := actorstest.StrArg(t, d, "store")
	write := actorstest.StrArg(t, d, "write")
	c.HandleInterrupts(once(func(k *Kernel, vector int) {
		log.printf("%s irq %d: handler starts", k.Now(), vector)
		k.Charge(charge)
		if store != "" {
			addr, what, _ := strings.Cut(store, ":")
			k.Store(uint64(mustInt(t, addr)), label(what))
		}
		if write != "" {
			k.MMIOWrite(ht.PPC, actors.Bytes(mustInt(t, write)), label(fmt.Sprintf("irq%d", vector)))
		}
		log.printf("%s irq %d: handler ends", k.Now(), vector)
	}))
}
