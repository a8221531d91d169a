package cci

import (
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// streamCase runs a client on node 0 sending msgs on a connection of type attr to a
// server on node 1, which receives want messages (after sleeping hold, if set) and
// returns what arrived; the client returns the statuses of its send events. On a
// reliable connection the server keeps polling until the client, with every send
// complete, sends a last "end" message: retransmissions whose ack was lost still need
// the receiver's completion queue credits.
type streamCase struct {
	p      Params
	attr   Attr
	msgs   [][]byte
	window int
	want   int
	hold   actors.Duration // the server sleeps this long before it polls
	tweak  func(*world)
}

func (c streamCase) run(t *testing.T) (got [][]byte, sts map[Status]int, w *world) {
	t.Helper()
	w = newWorld(t, "2x1x1", c.p, nil)
	if c.tweak != nil {
		c.tweak(w)
	}
	sts = map[Status]int{}
	w.spawn(1, "server", func(pr *Process) error {
		ep, err := pr.Open()
		if err != nil {
			return err
		}
		if _, err := AcceptOne(ep); err != nil {
			return err
		}
		pr.p.Compute(c.hold)
		if got, err = recvN(ep, c.want); err != nil || !c.attr.Reliable() {
			return err
		}
		end, err := recvN(ep, 1)
		if err == nil && string(end[0]) != "end" {
			err = fmt.Errorf("message %.8x after the last one", end[0])
		}
		return err
	})
	w.spawn(0, "client", func(pr *Process) error {
		ep, err := pr.Open()
		if err != nil {
			return err
		}
		conn, err := dialSend(ep, 0, c.attr, c.msgs, c.window, sts)
		if err != nil {
			return err
		}
		if err := drain(ep, sts); err != nil || !c.attr.Reliable() {
			return err
		}
		if err := ep.Send(conn, Bytes([]byte("end")), nil); err != nil {
			return err
		}
		return drain(ep, nil)
	})
	w.mustRun()
	return got, sts, w
}

func patterns(n int, size func(i int) int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = pattern(i, size(i))
	}
	return out
}

// Messages of every size up to the MSS arrive with their bytes, in order on every
// connection type when nothing is lost (one path through the network), each send
// completing once (Dillow & Atchley 2011 s.IV.B).
func TestMessagesArriveWithTheirBytes(t *testing.T) {
	for _, a := range []Attr{UU, RU, RO} {
		msgs := patterns(60, func(i int) int { return (i * 977) % 4097 })
		msgs[7] = pattern(7, 4096)
		got, sts, w := streamCase{p: DefaultParams(), attr: a, msgs: msgs, window: 8, want: len(msgs)}.run(t)
		sameMsgs(t, msgs, got, a.String())
		assert.Equal(t, map[Status]int{OK: len(msgs)}, sts, "%s", a)
		s := w.fw(1).Stats
		for i, n := range w.m.Nodes {
			assert.Zero(t, n.Host.Stats.Interrupts, "%s: node %d: CCI never interrupts the host", a, i)
			assert.Less(t, w.stacks[i].Stats.KernelCalls, int64(8), "%s: node %d: the kernel only sets up (endpoint, header rows)", a, i)
		}
		if a.Reliable() {
			assert.Equal(t, int64(len(msgs)+2), s.Acks, "%s: one NIC ack per message, for the request and for the end message", a)
		} else {
			assert.Equal(t, int64(1), s.Acks, "%s: only the connection request is acked", a)
		}
	}
}

// The MSS bounds a message (4 KB by default, Dillow & Atchley 2011 s.IV.B); it is a
// parameter: with 8 KB, 8 KB messages pass.
func TestMSS(t *testing.T) {
	var tooBig, fits error
	for _, mss := range []actors.Bytes{4 * actors.KiB, 8 * actors.KiB} {
		p := DefaultParams()
		p.MSS = mss
		w := newWorld(t, "2x1x1", p, nil)
		var got [][]byte
		w.spawn(1, "server", func(pr *Process) error {
			ep, _ := pr.Open()
			if _, err := AcceptOne(ep); err != nil {
				return err
			}
			var err error
			got, err = recvN(ep, 1)
			return err
		})
		w.spawn(0, "client", func(pr *Process) error {
			ep, _ := pr.Open()
			c, err := Dial(ep, 1, 0, RO, Size(0))
			if err != nil {
				return err
			}
			tooBig = ep.Send(c, Size(int64(mss)+1), nil)
			fits = ep.Send(c, Bytes(pattern(1, int(mss))), nil)
			return drain(ep, nil)
		})
		w.mustRun()
		assert.ErrorIs(t, tooBig, ErrMsgSize, "mss %s", mss)
		assert.NoError(t, fits)
		require.Len(t, got, 1)
		assert.Len(t, got[0], int(mss))
	}
}

// TX areas (Dillow & Atchley 2011 s.IV.B, s.IV.C): 32 areas of 16 KB hold 96 full-size
// messages (a message never spans two areas) or 8,192 messages of up to 40 bytes
// (64-byte slots); an area is reused once all its messages are done.
func TestTXAreaCapacity(t *testing.T) {
	p := DefaultParams()
	for _, c := range []struct {
		size actors.Bytes
		fit  int
	}{{p.HeaderBytes + 4096, 96}, {p.HeaderBytes + 40, 8192}, {p.HeaderBytes + 41, 4096}} {
		var tx txAreas
		tx.init(p)
		n := 0
		var areas []int
		for {
			a, _, ok := tx.alloc(p.slot(c.size))
			if !ok {
				break
			}
			areas = append(areas, a)
			n++
		}
		assert.Equal(t, c.fit, n, "%s messages", c.size)
		tx.free(areas[0]) // area 0 still holds other messages: no room
		_, _, ok := tx.alloc(p.slot(c.size))
		assert.False(t, ok)
		for _, a := range areas {
			if a == 0 {
				tx.free(a)
			}
		}
		tx.live[0]++ // the first free above was counted twice
		a, off, ok := tx.alloc(p.slot(c.size))
		assert.True(t, ok, "area 0 emptied")
		assert.Equal(t, 0, a)
		assert.Equal(t, actors.Bytes(0), off)
	}
}

// Messages of a reliable connection hold their TX slot until acked: when the receiver
// answers "not ready" (its completion queue is full), sends fail with ErrNoBuffers
// once the TX areas are full, and succeed again once acks free slots.
func TestTXAreasFullUntilAcked(t *testing.T) {
	p := DefaultParams()
	p.CQSlots, p.CreditBatch = 16, 4
	w := newWorld(t, "2x1x1", p, nil)
	var n, live int
	var got [][]byte
	sts := map[Status]int{}
	msgs := patterns(150, func(int) int { return 4096 })
	w.spawn(1, "server", func(pr *Process) error {
		ep, _ := pr.Open()
		if _, err := AcceptOne(ep); err != nil {
			return err
		}
		pr.p.Compute(500 * actors.Microsecond)
		var err error
		got, err = recvN(ep, len(msgs))
		return err
	})
	w.spawn(0, "client", func(pr *Process) error {
		ep, _ := pr.Open()
		conn, err := Dial(ep, 1, 0, RO, Size(0))
		if err != nil {
			return err
		}
		for ; n < len(msgs); n++ {
			if err := ep.Send(conn, Bytes(msgs[n]), nil); err != nil {
				if err != ErrNoBuffers {
					return err
				}
				live = len(ep.ops)
				break
			}
		}
		if err := sendAll(ep, conn, msgs[n:], 1000, sts); err != nil {
			return err
		}
		return drain(ep, sts)
	})
	w.mustRun()
	assert.Equal(t, map[Status]int{OK: len(msgs)}, sts, "every send acked: answers wait in the NIC for completion queue credits")
	assert.Less(t, n, len(msgs), "the TX areas filled")
	assert.GreaterOrEqual(t, n, 96)
	assert.LessOrEqual(t, live, 96, "every slot held by an unacked message, or empty in an area not yet empty")
	assert.Greater(t, live, 90)
	sameMsgs(t, msgs, got, "all delivered in order after the not-ready answers")
}

// RX areas (Dillow & Atchley 2011 s.IV.B.2): the NIC fills one area at a time and,
// when a message does not fit, closes it out (a completion with its message count)
// and takes the next area of the ready ring; an area whose messages are all returned
// goes back on the ready ring. With 4 areas of 16 KB (3 full-size messages each),
// 60 messages cycle through them; while the receiver holds every event, the NIC runs
// out of areas and answers "not ready", and the sender resends until areas are free.
// Resends of later messages may overtake the first one answered "not ready": the RO
// library copies them out of their area into its reorder buffer, so that they cannot
// take the areas the earlier one needs.
func TestRXAreasCloseOutAndReadyRing(t *testing.T) {
	p := DefaultParams()
	p.RxAreas, p.ReadyBatch = 4, 1
	msgs := patterns(60, func(int) int { return 4096 })
	got, sts, w := streamCase{p: p, attr: RO, msgs: msgs, window: 16, want: len(msgs)}.run(t)
	sameMsgs(t, msgs, got, "ro")
	assert.Equal(t, len(msgs), sts[OK])
	s := w.fw(1).Stats
	assert.GreaterOrEqual(t, s.AreaCloses, int64(60/3-1), "every area holds 3 full-size messages")

	// The receiver holds 20 events (more than 4 areas' worth) before returning any.
	held, done := 0, false
	w = newWorld(t, "2x1x1", p, nil)
	w.spawn(1, "server", func(pr *Process) error {
		ep, _ := pr.Open()
		if _, err := AcceptOne(ep); err != nil {
			return err
		}
		var evs []*Event
		for range 12 {
			ev, err := next(ep, EvRecv)
			if err != nil {
				return err
			}
			evs = append(evs, ev)
			held++
		}
		pr.p.Compute(100 * actors.Microsecond)
		for _, ev := range evs {
			ep.ReturnEvent(ev)
		}
		rest, err := recvN(ep, len(msgs)-12)
		sameMsgs(t, msgs[12:], rest, "the rest in order")
		done = true
		return err
	})
	w.spawn(0, "client", func(pr *Process) error {
		ep, _ := pr.Open()
		_, err := dialSend(ep, 0, RO, msgs, 32, nil)
		if err != nil {
			return err
		}
		return drain(ep, nil)
	})
	w.mustRun()
	assert.Equal(t, 12, held)
	assert.True(t, done, "the receiver got every message: the messages held for ordering took no RX area")
	assert.Positive(t, w.fw(1).Stats.NotReady, "out of RX areas: not ready")
	assert.Positive(t, w.stacks[0].eps[0].Stats.RNRResends)
}

// The completion queue (Dillow & Atchley 2011 s.IV.B): the NIC writes an entry only
// with a credit the library returned; with a full queue (the receiver does not poll)
// a reliable message is answered "not ready" and sent again later, so that all arrive
// in order; unreliable messages are dropped and counted.
func TestFullCompletionQueue(t *testing.T) {
	p := DefaultParams()
	p.CQSlots, p.CreditBatch = 16, 4
	msgs := patterns(100, func(i int) int { return 64 + i })
	got, sts, w := streamCase{p: p, attr: RO, msgs: msgs, window: 32, want: len(msgs), hold: 200 * actors.Microsecond}.run(t)
	sameMsgs(t, msgs, got, "in order despite the not-ready answers")
	assert.Equal(t, len(msgs), sts[OK])
	assert.Positive(t, w.fw(1).Stats.NotReady)

	var gotUU [][]byte
	w = newWorld(t, "2x1x1", p, nil)
	w.spawn(1, "server", func(pr *Process) error {
		ep, _ := pr.Open()
		if _, err := AcceptOne(ep); err != nil {
			return err
		}
		pr.p.Compute(200 * actors.Microsecond)
		for { // take what arrived, until the client's last message
			ev, err := next(ep, EvRecv)
			if err != nil {
				return err
			}
			gotUU = append(gotUU, ev.Data)
			last := len(ev.Data) == 3
			ep.ReturnEvent(ev)
			if last {
				return nil
			}
		}
	})
	w.spawn(0, "client", func(pr *Process) error {
		ep, _ := pr.Open()
		conn, err := dialSend(ep, 0, UU, msgs, 32, nil)
		if err != nil {
			return err
		}
		pr.p.Compute(400 * actors.Microsecond) // the server drained its queue
		if err := ep.Send(conn, Bytes([]byte{1, 2, 3}), nil); err != nil {
			return err
		}
		return drain(ep, nil)
	})
	w.mustRun()
	dropped := w.fw(1).Stats.DroppedUU
	assert.Positive(t, dropped)
	assert.Equal(t, int64(len(msgs)+1), int64(len(gotUU))+dropped, "every message arrived or was counted as dropped")
}

// The NIC command queue (Dillow & Atchley 2011 s.IV.B): processes claim credits in the
// shared control page and wait when the queue is full; the NIC writes its consumer
// index back. Two processes on a node share an 8-entry queue.
func TestCommandQueueCredits(t *testing.T) {
	p := DefaultParams()
	p.CmdSlots, p.CmdBatch = 8, 4
	w := newWorld(t, "2x1x1", p, nil)
	msgs := patterns(150, func(i int) int { return i % 200 })
	var got [2][][]byte
	for i := range 2 {
		w.spawn(1, fmt.Sprintf("server%d", i), func(pr *Process) error {
			ep, _ := pr.Open()
			if _, err := AcceptOne(ep); err != nil {
				return err
			}
			var err error
			got[ep.ID], err = recvN(ep, len(msgs))
			return err
		})
	}
	for i := range 2 {
		w.spawn(0, fmt.Sprintf("client%d", i), func(pr *Process) error {
			ep, _ := pr.Open()
			_, err := dialSend(ep, ep.ID, RO, msgs, 64, nil)
			if err != nil {
				return err
			}
			return drain(ep, nil)
		})
	}
	w.mustRun()
	sameMsgs(t, msgs, got[0], "endpoint 0")
	sameMsgs(t, msgs, got[1], "endpoint 1")
	assert.Positive(t, w.stacks[0].Stats.CmdWaits, "the queue filled")
	assert.LessOrEqual(t, w.stacks[0].produced-w.fw(0).consumed, uint64(p.CmdSlots))
}
