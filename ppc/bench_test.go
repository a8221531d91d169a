package ppc

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/txdma"
	"github.com/stretchr/testify/require"
)

// job is an event whose handler runs the listed operations in order (see scripted).
type job struct {
	name string
	ops  []string
}

func (j *job) String() string { return "job(" + j.name + ")" }

// scripted is a test firmware: it boots with the given allocations and runs the
// operations of each job; any other event costs 10 instructions. It logs every
// handler's span.
type scripted struct {
	allocs []Allocation
	log    []string
}

func (f *scripted) Boot(b *Boot) error {
	for _, a := range f.allocs {
		b.Alloc(a.Name, a.Size, a.Count)
	}
	return nil
}

func (f *scripted) Handle(x *Exec, ev actors.Msg) {
	start := x.ctx.Now()
	j, ok := ev.(*job)
	if !ok {
		x.Instr(10)
	} else {
		for _, op := range j.ops {
			runOp(x, op)
		}
	}
	f.log = append(f.log, fmt.Sprintf("%s: %s..%s", ev, start, x.Now()))
}

// runOp runs one operation "name" or "name:arg[:arg]".
func runOp(x *Exec, op string) {
	name, arg, _ := strings.Cut(op, ":")
	n := func() int {
		v, err := strconv.Atoi(arg)
		if err != nil {
			x.Fatalf("bad op %q", op)
		}
		return v
	}
	switch name {
	case "instr":
		x.Instr(n())
	case "load":
		x.Load(n())
	case "store":
		x.Store(n())
	case "uload":
		x.LoadUncached(n())
	case "ustore":
		x.StoreUncached(n())
	case "hload":
		x.LoadHost(n())
	case "trace":
		x.Trace("handler", 0x10, uint8(n()))
	case "tx":
		x.TX(txdma.Command{Kind: txdma.LoadDest, Dst: 1})
	case "pio":
		x.PIO(&txdma.PIO{Dst: 1, Bytes: int64(n())})
	case "cam":
		x.CAM(cam.SetEntry{Entry: 0, Src: 1})
	case "discard":
		x.Discard(&router.Packet{Src: 1})
	case "hostwrite":
		x.HostWrite(actors.Bytes(n()), nil)
	case "irq":
		x.Interrupt(n())
	case "after":
		d, ev, _ := strings.Cut(arg, ":")
		dur, err := actors.ParseDuration(d)
		if err != nil {
			x.Fatalf("bad op %q", op)
		}
		x.After(dur, &job{name: ev})
	case "fatal":
		x.Fatalf("firmware panic: %s", arg)
	default:
		x.Fatalf("unknown op %q", op)
	}
}

func newCore(t *testing.T, d *datadriven.TestData, fw *scripted) *Core {
	p := DefaultParams()
	for _, a := range d.CmdArgs {
		v := a.Vals[0]
		var err error
		flag := func(dst *bool) { *dst, err = strconv.ParseBool(v) }
		num := func(dst *int) { *dst, err = strconv.Atoi(v) }
		switch a.Key {
		case "icache":
			flag(&p.ICache)
		case "dcache":
			flag(&p.DCache)
		case "trace_enabled":
			flag(&p.TraceEnabled)
		case "trace_records":
			num(&p.TraceRecords)
		case "poll_cycles":
			num(&p.PollCycles)
		case "dispatch_cycles":
			num(&p.DispatchCycles)
		default:
			t.Fatalf("%s: unknown parameter %s", d.Pos, a.Key)
		}
		require.NoError(t, err, a.Key)
	}
	require.NoError(t, p.Validate())
	c, err := New(p, fw)
	require.NoError(t, err)
	return c
}

// TestCoreScripts runs testdata/*.txt against one core running the scripted
// firmware. Commands:
//
//	new [icache=B dcache=B trace_enabled=B trace_records=N poll_cycles=N dispatch_cycles=N]
//	event name=S [at=T] [ops=(op,...)]   a job on the ht port (a mailbox store)
//	done [at=T] [tag=N]                  a txdma.Done on the txdma port
//	run [until=T]                        outputs, then the firmware's handler log
//	trace                                the trace ring, oldest first
//	heartbeat at=T
//	stats
//
// Ops: instr:N load:N store:N uload:N ustore:N hload:N trace:V tx pio:N cam discard
// hostwrite:N irq:V after:D:name fatal:S. Regenerate with: go test ./ppc -rewrite
func TestCoreScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var h *actorstest.Harness
		var c *Core
		var fw *scripted
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new":
				fw = &scripted{}
				c = newCore(t, d, fw)
				h, _ = actorstest.NewHarness("node[0,0,0].ppc", c, 1)
				return fmt.Sprintf("cycle %s, poll %s, dispatch %s\n", c.p.Cycles(1), c.p.Cycles(int64(c.p.PollCycles)),
					c.p.Cycles(int64(c.p.DispatchCycles)))
			case "event":
				j := &job{}
				d.ScanArgs(t, "name", &j.name)
				for _, a := range d.CmdArgs {
					if a.Key == "ops" {
						j.ops = a.Vals
					}
				}
				h.Inject(actorstest.TimeArg(t, d, "at"), PortHT, j)
			case "done":
				var tag uint64
				if d.HasArg("tag") {
					d.ScanArgs(t, "tag", &tag)
				}
				h.Inject(actorstest.TimeArg(t, d, "at"), PortTXDMA, txdma.Done{Tag: tag})
			case "run":
				until := actors.MaxTime
				if d.HasArg("until") {
					until = actorstest.TimeArg(t, d, "until")
				}
				var out []actorstest.Sent
				fatal := actorstest.Catch(func() { out = h.Run(until) })
				s := actorstest.Trace(out, c.Ports())
				for _, l := range fw.log {
					s += "handler " + l + "\n"
				}
				fw.log = nil
				return s + actorstest.FatalLine(h.Now(), fatal)
			case "trace":
				var sb strings.Builder
				for _, r := range c.Trace().Records() {
					sb.WriteString(r.String() + "\n")
				}
				fmt.Fprintf(&sb, "total %d\n", c.Trace().Total())
				return sb.String()
			case "heartbeat":
				at := actorstest.TimeArg(t, d, "at")
				return fmt.Sprintf("heartbeat at %s: %d\n", at, c.Heartbeat(at))
			case "stats":
				s := c.Stats
				return fmt.Sprintf("handled %d busy %s queue-wait %s peak-queue %d\n", s.Handled, s.Busy, s.QueueWait, s.PeakQueue)
			default:
				t.Fatalf("%s: unknown command %s", d.Pos, d.Cmd)
			}
			return ""
		})
	})
}
