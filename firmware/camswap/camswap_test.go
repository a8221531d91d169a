package camswap_test

import (
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/firmware/camswap"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// src is a test firmware's record of a source: the commands it knows of that are not
// in the CAM yet.
type src struct {
	camswap.Source
	cmds []cam.Command
}

func (s *src) CAM() *camswap.Source { return &s.Source }

// fw is a firmware that only manages CAM entries: its events say that a source has new
// commands (need), that the RX pipeline stalled on a source (stall) or that a source's
// commands have all retired (retire); it logs the manager's calls to its hooks.
type fw struct {
	m     *camswap.Entries[*src]
	srcs  map[router.NodeID]*src
	depth int
	log   []string
}

type (
	need   struct{ node, n int }
	stall  struct{ node int }
	retire struct{ node int }
)

func (e need) String() string   { return fmt.Sprintf("need(%d, %d)", e.node, e.n) }
func (e stall) String() string  { return fmt.Sprintf("stall(%d)", e.node) }
func (e retire) String() string { return fmt.Sprintf("retire(%d)", e.node) }

func (f *fw) Boot(*ppc.Boot) error { return nil }

func (f *fw) Handle(x *ppc.Exec, ev actors.Msg) {
	switch ev := ev.(type) {
	case need:
		n := router.NodeID(ev.node)
		s := f.srcs[n]
		if s == nil {
			s = &src{Source: camswap.NewSource(n)}
			f.srcs[n] = s
		}
		for range ev.n {
			s.cmds = append(s.cmds, cam.Command{Bytes: 64, Addr: uint64(ev.node)})
		}
		f.m.Need(x, s)
	case stall:
		f.m.Stalled(x, router.NodeID(ev.node))
	case retire:
		s := f.srcs[router.NodeID(ev.node)]
		s.Queued = 0
		f.m.Release(x, s)
	case cam.Swapped:
		f.m.Returned(x, ev)
	default:
		x.Fatalf("test firmware: %v", ev)
	}
}

func (f *fw) Lookup(n router.NodeID) (*src, bool) { s, ok := f.srcs[n]; return s, ok }
func (f *fw) Ready(s *src) bool                   { return len(s.cmds) > 0 }
func (f *fw) Backlog(s *src) bool                 { return len(s.cmds) > 0 }

func (f *fw) Next(s *src, n int) []cam.Command {
	n = min(n, len(s.cmds))
	out := append([]cam.Command(nil), s.cmds[:n]...)
	s.cmds = s.cmds[n:]
	return out
}

func (f *fw) PutBack(s *src, cmds []cam.Command) {
	s.cmds = append(append([]cam.Command(nil), cmds...), s.cmds...)
}

func (f *fw) Feed(x *ppc.Exec, s *src) {
	for s.Entry >= 0 && s.Queued < f.depth && len(s.cmds) > 0 {
		x.CAM(cam.PushCommand{Entry: s.Entry, Cmd: s.cmds[0]})
		s.cmds = s.cmds[1:]
		s.Queued++
	}
}

func (f *fw) Spill(_ *ppc.Exec, s *src)   { f.log = append(f.log, fmt.Sprintf("spill %d", s.Node)) }
func (f *fw) Unspill(_ *ppc.Exec, s *src) { f.log = append(f.log, fmt.Sprintf("unspill %d", s.Node)) }
func (f *fw) Swapped(_ *ppc.Exec, v *src) { f.log = append(f.log, fmt.Sprintf("swapped %d", v.Node)) }

// bench is a PPC running fw over a CAM of the given entries, each queueing depth
// commands.
type bench struct {
	t  *testing.T
	f  *fw
	h  *actorstest.Harness
	at actors.Time
}

func newBench(t *testing.T, entries, depth int) *bench {
	f := &fw{srcs: map[router.NodeID]*src{}, depth: depth}
	f.m = camswap.New[*src](f, camswap.Config{Name: "test", Entries: entries, Depth: depth, SwapInstr: 60, SwappedInstr: 20})
	c, err := ppc.New(ppc.DefaultParams(), f)
	require.NoError(t, err)
	h, _ := actorstest.NewHarness("ppc", c, 1)
	return &bench{t: t, f: f, h: h}
}

// do delivers ev to the firmware and returns what it sent to the CAM, as strings.
func (b *bench) do(ev actors.Msg) []string {
	b.at = b.at.Add(actors.Microsecond)
	b.h.Inject(b.at, ppc.PortCAM, ev)
	var out []string
	for _, s := range b.h.Run(b.at.Add(actors.Microsecond / 2)) {
		out = append(out, s.Msg.String())
	}
	return out
}

// Sources bind free entries; without one a source waits, and gets the entry of the
// first source whose commands all retire (the oldest waiting first).
func TestFreeEntriesThenWaiting(t *testing.T) {
	b := newBench(t, 2, 7)
	assert.Equal(t, []string{"cam.SetEntry(0 node1)", "cam.PushCommand(0 dma@0x1 64B)"}, b.do(need{1, 1}))
	assert.Equal(t, []string{"cam.SetEntry(1 node2)", "cam.PushCommand(1 dma@0x2 64B)"}, b.do(need{2, 1}))
	assert.Empty(t, b.do(need{3, 1}), "no entry free: node 3 waits")
	assert.Empty(t, b.do(need{4, 1}), "and node 4 after it")
	assert.Equal(t, []string{"cam.ClearEntry(1)", "cam.SetEntry(1 node3)", "cam.PushCommand(1 dma@0x3 64B)"}, b.do(retire{2}))
	assert.Equal(t, []string{"cam.ClearEntry(0)", "cam.SetEntry(0 node4)", "cam.PushCommand(0 dma@0x4 64B)"}, b.do(retire{1}))
	assert.Empty(t, b.f.log, "no swap without a stall")
}

// A stall on a source without an entry swaps one in at once, taking victims in clock
// order; the victim's returned commands are spilled, and read back when it gets an
// entry again.
func TestStallSwapsInClockOrder(t *testing.T) {
	b := newBench(t, 2, 2)
	b.do(need{1, 3}) // entry 0: two commands in the CAM, one left in the record
	b.do(need{2, 1}) // entry 1
	assert.Empty(t, b.do(need{3, 3}))
	out := b.do(stall{3})
	require.Len(t, out, 1)
	assert.Contains(t, out[0], "cam.Swap(0 node3", "the clock starts at entry 0: node 1 is the victim")
	assert.Equal(t, []string{"swapped 1"}, b.f.log)
	s3 := b.f.srcs[3]
	assert.Equal(t, 0, s3.Entry)
	assert.Equal(t, 2, s3.Queued, "a whole queue's depth went in with the swap")
	s1 := b.f.srcs[1]
	assert.True(t, s1.Swapping)

	// The CAM returns node 1's two queued commands: spilled, and node 1 waits (no entry free).
	assert.Empty(t, b.do(cam.Swapped{Entry: 0, Src: 1, Cmds: []cam.Command{{Bytes: 64, Addr: 1}, {Bytes: 64, Addr: 1}}}))
	assert.Equal(t, []string{"swapped 1", "spill 1"}, b.f.log)
	assert.Len(t, s1.cmds, 3, "its two returned commands back before the one it had")
	assert.False(t, s1.Swapping)

	// The next stall, on node 1, swaps out the entry after the last victim's: entry 1 (node 2).
	out = b.do(stall{1})
	require.Len(t, out, 1)
	assert.Contains(t, out[0], "cam.Swap(1 node1")
	assert.Equal(t, []string{"swapped 1", "spill 1", "unspill 1", "swapped 2"}, b.f.log)

	// Node 2 had nothing left outside the CAM: nothing to spill when its entry comes back.
	assert.Empty(t, b.do(cam.Swapped{Entry: 1, Src: 2}))
	assert.Equal(t, []string{"swapped 1", "spill 1", "unspill 1", "swapped 2"}, b.f.log)
	assert.False(t, b.f.srcs[2].Waiting)
}

// A CAM that returns an entry of a source it was never asked to swap out is a model bug.
func TestUnexpectedReturnIsFatal(t *testing.T) {
	b := newBench(t, 1, 7)
	b.do(need{1, 1})
	msg := actorstest.Catch(func() { b.do(cam.Swapped{Entry: 0, Src: 1}) })
	assert.Contains(t, msg, "test: CAM returned entry 0 of node 1, which was not swapped out")
}
