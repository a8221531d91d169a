package cci

import (
	"context"
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pollUntil processes ep's events until the process's clock reaches deadline: it
// accepts every connection request and hands every other event to fn (which must not
// return it), then returns it.
func pollUntil(ep *Endpoint, deadline actors.Time, fn func(*Event)) error {
	for {
		if ev, ok := ep.GetEvent(); ok {
			if ev.Type == EvConnectRequest {
				if _, err := ep.Accept(ev, nil); err != nil {
					return err
				}
			} else if fn != nil {
				fn(ev)
			}
			ep.ReturnEvent(ev)
			continue
		}
		now := ep.p.Now()
		if now >= deadline {
			return nil
		}
		until := deadline
		if len(ep.timers) > 0 {
			until = min(until, ep.timers[0].deadline)
		}
		if m, ok := ep.p.WaitUntil(cqAddr(ep.ID, ep.cqNext, ep.P.CQSlots), until); ok {
			ep.consume(m)
		}
	}
}

// at is simulated time t microseconds after the start.
func at(us int64) actors.Time { return actors.Time(0).Add(actors.Duration(us) * actors.Microsecond) }

// sleepUntil advances the process's clock to t.
func sleepUntil(pr *Process, t actors.Time) {
	if d := t.Sub(pr.Now()); d > 0 {
		pr.p.Compute(d)
	}
}

// The library validates the untrusted part of every header (Dillow & Atchley 2011
// s.IV.B): a message with another endpoint's nonce, one naming a connection of another
// peer, and messages for a connection that was closed or whose slot was reused (older
// generation) are rejected and counted; the first header word comes from the kernel's
// table, so a process cannot send a type its connection's row lacks: the NIC refuses
// the command.
func TestForgedAndStaleMessagesRejected(t *testing.T) {
	w := newWorld(t, "3x1x1", DefaultParams(), nil)
	var got []string
	var srv *Endpoint
	var forgedType Status
	w.spawn(1, "server", func(pr *Process) error {
		ep, err := pr.Open()
		if err != nil {
			return err
		}
		srv = ep
		record := func(ev *Event) {
			if ev.Type == EvRecv {
				got = append(got, string(ev.Data))
			}
		}
		if err := pollUntil(ep, at(150), record); err != nil {
			return err
		}
		if err := ep.Disconnect(ep.conns[0]); err != nil { // the honest client's connection
			return err
		}
		return pollUntil(ep, at(600), record)
	})
	w.spawn(0, "client", func(pr *Process) error {
		ep, _ := pr.Open()
		c, err := Dial(ep, 1, 0, UU, Size(0))
		if err != nil {
			return err
		}
		if err := ep.Send(c, Bytes([]byte("a1")), nil); err != nil {
			return err
		}
		sleepUntil(pr, at(200))
		if err := ep.Send(c, Bytes([]byte("a2 after the server disconnected")), nil); err != nil {
			return err
		}
		c2, err := Dial(ep, 1, 0, UU, Size(0)) // takes the freed slot, a new generation
		if err != nil {
			return err
		}
		if c2.peerConn != c.peerConn || c2.peerGen != c.peerGen+1 {
			return fmt.Errorf("new connection at server slot %d/%d, want slot %d reused", c2.peerConn, c2.peerGen, c.peerConn)
		}
		if err := ep.Send(c, Bytes([]byte("a3 on the old generation")), nil); err != nil {
			return err
		}
		if err := ep.Send(c2, Bytes([]byte("a4")), nil); err != nil {
			return err
		}
		return drain(ep, nil)
	})
	w.spawn(2, "attacker", func(pr *Process) error {
		ep, _ := pr.Open()
		sleepUntil(pr, at(50))
		c, err := Dial(ep, 1, 0, UU, Size(0))
		if err != nil {
			return err
		}
		if err := ep.Send(c, Bytes([]byte("b1")), nil); err != nil {
			return err
		}
		c.peerNonce ^= 1 << 17 // a guessed nonce
		if err := ep.Send(c, Bytes([]byte("forged nonce")), nil); err != nil {
			return err
		}
		c.peerNonce ^= 1 << 17
		conn, gen := c.peerConn, c.peerGen
		c.peerConn, c.peerGen = 0, 1 // the honest client's connection at the server
		if err := ep.Send(c, Bytes([]byte("forged connection")), nil); err != nil {
			return err
		}
		c.peerConn, c.peerGen = conn, gen
		c.Attr = RU // a reliable type on an unreliable connection's row
		if err := ep.Send(c, Bytes([]byte("forged type")), nil); err != nil {
			return err
		}
		c.Attr = UU
		for len(ep.ops) > 0 {
			ev, err := ep.WaitEvent()
			if err != nil {
				return err
			}
			if ev.Status != OK {
				forgedType = ev.Status
			}
			ep.ReturnEvent(ev)
		}
		return nil
	})
	w.mustRun()
	assert.Equal(t, []string{"a1", "b1", "a4"}, got)
	require.NotNil(t, srv)
	assert.Equal(t, int64(1), srv.Stats.BadNonce, "forged nonce")
	assert.Equal(t, int64(1), srv.Stats.BadSource, "another peer's connection")
	assert.Equal(t, int64(2), srv.Stats.Stale, "closed connection, then older generation")
	assert.Equal(t, ErrInvalid, forgedType, "the NIC refused a type the kernel built no word for")
	assert.Equal(t, int64(1), w.fw(2).Stats.BadCommands)
}

// Closing an endpoint with messages in flight (Dillow & Atchley 2011 s.IV.B.2): when
// the receiver closes, its NIC answers later reliable messages "refused" and the
// sender's sends complete with ErrDisconnected, none hanging; when the sender closes,
// its queued transmissions are cancelled, Close returns once the NIC has finished
// with the endpoint, and the reopened endpoint (same id, new nonce) works.
func TestEndpointClosedWithMessagesInFlight(t *testing.T) {
	w := newWorld(t, "2x1x1", DefaultParams(), nil)
	msgs := patterns(200, func(int) int { return 1024 })
	sts := map[Status]int{}
	var closeErr error
	w.spawn(1, "server", func(pr *Process) error {
		ep, _ := pr.Open()
		if _, err := AcceptOne(ep); err != nil {
			return err
		}
		if _, err := recvN(ep, 20); err != nil {
			return err
		}
		closeErr = ep.Close()
		return nil
	})
	w.spawn(0, "client", func(pr *Process) error {
		ep, _ := pr.Open()
		_, err := dialSend(ep, 0, RU, msgs, 64, sts)
		if err != nil {
			return err
		}
		return drain(ep, sts)
	})
	w.mustRun()
	assert.NoError(t, closeErr)
	assert.Equal(t, len(msgs), sts[OK]+sts[ErrDisconnected], "every send completed, OK or disconnected: %v", sts)
	assert.GreaterOrEqual(t, sts[OK], 20)
	assert.Positive(t, sts[ErrDisconnected])
	assert.Positive(t, w.fw(1).Stats.Refused, "the closed endpoint's NIC refused")
	assert.False(t, w.fw(1).eps[0].active)
	assert.Zero(t, w.fw(1).eps[0].tasks)

	// The sender closes right after 64 full-size RU messages: their acks find the
	// endpoint closed.
	w = newWorld(t, "2x1x1", DefaultParams(), nil)
	var got [][]byte
	var nonces [2]uint64
	stage := 0
	w.spawn(1, "server", func(pr *Process) error {
		ep, _ := pr.Open()
		for {
			err := pollUntil(ep, pr.Now().Add(10*actors.Microsecond), func(ev *Event) {
				if ev.Type == EvRecv {
					got = append(got, append([]byte(nil), ev.Data...))
				}
			})
			if err != nil || len(got) > 0 && string(got[len(got)-1]) == "again" {
				return err
			}
		}
	})
	w.spawn(0, "client", func(pr *Process) error {
		ep, _ := pr.Open()
		nonces[0] = ep.Nonce()
		c, err := Dial(ep, 1, 0, RU, Size(0))
		if err != nil {
			return err
		}
		for i := range 64 {
			if err := ep.Send(c, Bytes(pattern(i, 4096)), nil); err != nil {
				return err
			}
		}
		if closeErr = ep.Close(); closeErr != nil {
			return closeErr
		}
		if err := ep.Send(c, Size(1), nil); err != ErrClosed {
			return fmt.Errorf("send on a closed endpoint: %v, want %v", err, ErrClosed)
		}
		ep, err = pr.Open()
		if err != nil {
			return err
		}
		nonces[1] = ep.Nonce()
		if ep.ID != 0 {
			return fmt.Errorf("reopened endpoint %d, want 0", ep.ID)
		}
		c, err = Dial(ep, 1, 0, UU, Size(0))
		if err != nil {
			return err
		}
		if err := ep.Send(c, Bytes([]byte("again")), nil); err != nil {
			return err
		}
		stage = 1
		return drain(ep, nil)
	})
	w.mustRun()
	assert.NoError(t, closeErr)
	require.NotEmpty(t, got)
	assert.True(t, string(got[len(got)-1]) == "again", "the reopened endpoint's message arrived last (%d messages)", len(got))
	assert.LessOrEqual(t, len(got)-1, 64, "transmissions queued at the close were cancelled")
	sameMsgs(t, patterns(len(got)-1, func(int) int { return 4096 }), got[:len(got)-1], "the messages sent before the close, in order")
	assert.NotEqual(t, nonces[0], nonces[1])
	assert.Equal(t, 1, stage)
	assert.Positive(t, w.fw(0).Stats.AnswersLost, "acks for the closed endpoint were dropped by its NIC")
	assert.Zero(t, w.fw(0).eps[0].tasks)
}

// RO delivery under seeded message loss (Dillow & Atchley 2011 s.IV.B.2: "the sequence
// number is verified, and recovery performed as needed"): messages and acks lost on
// arrival are retransmitted after the timeout; duplicates are dropped; the library
// holds messages that overtook a lost one, so that all arrive exactly once and in
// order. RU delivers every message exactly once, in any order; UU loses some.
func TestDeliveryUnderLoss(t *testing.T) {
	loss := func(w *machine.Params) { w.RXDMA.DropRate = actors.MustParseProb("0.05") }
	msgs := patterns(300, func(i int) int { return 8 + (i*131)%2000 })
	for _, a := range []Attr{RO, RU, UU} {
		w := newWorld(t, "2x1x1", DefaultParams(), loss)
		var got [][]byte
		sts := map[Status]int{}
		w.spawn(1, "server", func(pr *Process) error {
			ep, _ := pr.Open()
			if _, err := AcceptOne(ep); err != nil {
				return err
			}
			return pollUntil(ep, at(30_000), func(ev *Event) {
				if ev.Type == EvRecv {
					got = append(got, append([]byte(nil), ev.Data...))
				}
			})
		})
		w.spawn(0, "client", func(pr *Process) error {
			ep, _ := pr.Open()
			_, err := dialSend(ep, 0, a, msgs, 32, sts)
			if err != nil {
				return err
			}
			return drain(ep, sts)
		})
		w.mustRun()
		lost := w.m.Nodes[1].RX.Stats.Dropped
		assert.Positive(t, lost, "%s: messages were lost", a)
		cl := w.stacks[0].eps[0].Stats
		switch a {
		case RO:
			sameMsgs(t, msgs, got, "ro: every message once, in order")
			assert.Equal(t, len(msgs), sts[OK])
			assert.Positive(t, cl.Retransmits)
			assert.Positive(t, w.stacks[1].eps[0].Stats.Held, "messages overtook a lost one and were held")
		case RU:
			assert.Equal(t, len(msgs), sts[OK])
			require.Len(t, got, len(msgs), "ru: every message once")
			seen := map[int]bool{}
			for _, m := range got {
				i := int(m[0]) | int(m[1])<<8
				assert.False(t, seen[i], "message %d twice", i)
				seen[i] = true
				assert.Equal(t, msgs[i], m)
			}
		case UU:
			assert.Less(t, len(got), len(msgs), "uu: lost messages stay lost")
			assert.Zero(t, cl.Retransmits)
		}
	}
}

// CAM swapping (Dillow & Atchley 2011 s.IV.B.2): with more peers sending at once than
// the CAM has entries, the firmware swaps entries and spills the swapped-out peers'
// commands (about 128 B per peer) to SRAM records, and to host memory beyond the
// local records; every message arrives intact.
func TestCAMSwapping(t *testing.T) {
	p := DefaultParams()
	p.LocalPeers = 2
	w := newWorld(t, "7x1x1", p, func(mp *machine.Params) { mp.CAM.Entries = 2 })
	const senders, per = 6, 12
	got := map[int][][]byte{}
	w.spawn(0, "sink", func(pr *Process) error {
		ep, _ := pr.Open()
		n := 0
		for n < senders*per {
			err := pollUntil(ep, pr.Now().Add(10*actors.Microsecond), func(ev *Event) {
				if ev.Type == EvRecv {
					node, _ := ev.Conn.Peer()
					got[int(node)] = append(got[int(node)], append([]byte(nil), ev.Data...))
					n++
				}
			})
			if err != nil {
				return err
			}
		}
		return pollUntil(ep, pr.Now().Add(50*actors.Microsecond), nil)
	})
	for s := 1; s <= senders; s++ {
		w.spawn(s, fmt.Sprintf("source%d", s), func(pr *Process) error {
			ep, _ := pr.Open()
			c, err := Dial(ep, 0, 0, RO, Size(0))
			if err != nil {
				return err
			}
			sleepUntil(pr, at(100)) // all connected: send at once
			msgs := patterns(per, func(int) int { return 4096 })
			for i := range msgs {
				msgs[i][3] = byte(s)
			}
			if err := sendAll(ep, c, msgs, per, nil); err != nil {
				return err
			}
			return drain(ep, nil)
		})
	}
	w.mustRun()
	for s := 1; s <= senders; s++ {
		msgs := patterns(per, func(int) int { return 4096 })
		for i := range msgs {
			msgs[i][3] = byte(s)
		}
		sameMsgs(t, msgs, got[s], fmt.Sprintf("source %d", s))
	}
	st := w.fw(0).Stats
	assert.Positive(t, st.Swaps, "entries were swapped")
	assert.Positive(t, st.Spills, "records beyond the local ones spilled to host memory")
	assert.Equal(t, 2, st.PeakCAM)
}

// RMA (beyond the paper's prototype): writes and reads between registered regions on a
// reliable connection, moved by the NICs without the target's host; a write's
// completion message reaches the target after the data is in place; a fenced
// operation starts after the earlier ones complete; bad handles, rights and
// connection types fail.
func TestRMA(t *testing.T) {
	w := newWorld(t, "2x1x1", DefaultParams(), nil)
	const n = 200_000
	src, remote := pattern(1, n), pattern(2, n)
	fenced := pattern(3, 5000)
	var (
		srvWin, srvRO       Handle
		atCompletion        []byte
		readBack, finalWin  []byte
		order               []string
		badKey, noRight, uu error
		badKeySt, noRightSt Status
	)
	w.spawn(1, "target", func(pr *Process) error {
		ep, _ := pr.Open()
		var err error
		if srvWin, err = ep.Register(n, make([]byte, n), AccessWrite|AccessRead); err != nil {
			return err
		}
		if srvRO, err = ep.Register(n, append([]byte(nil), remote...), AccessRead); err != nil {
			return err
		}
		done := false
		for !done {
			if err := pollUntil(ep, pr.Now().Add(5*actors.Microsecond), func(ev *Event) {
				if ev.Type == EvRecv && string(ev.Data) == "written" {
					b, _ := ep.Region(srvWin)
					atCompletion = append([]byte(nil), b...)
				}
				if ev.Type == EvRecv && string(ev.Data) == "bye" {
					done = true
				}
			}); err != nil {
				return err
			}
		}
		b, _ := ep.Region(srvWin)
		finalWin = append([]byte(nil), b...)
		return nil
	})
	w.spawn(0, "initiator", func(pr *Process) error {
		ep, _ := pr.Open()
		c, err := Dial(ep, 1, 0, RU, Size(0))
		if err != nil {
			return err
		}
		u, err := Dial(ep, 1, 0, UU, Size(0))
		if err != nil {
			return err
		}
		local, err := ep.Register(n, append([]byte(nil), src...), AccessRead|AccessWrite)
		if err != nil {
			return err
		}
		dst, err := ep.Register(n, make([]byte, n), AccessWrite)
		if err != nil {
			return err
		}
		fl, err := ep.Register(int64(len(fenced)), append([]byte(nil), fenced...), 0)
		if err != nil {
			return err
		}
		msg := Bytes([]byte("written"))
		wait := func(ctx ...string) (map[string]Status, error) {
			out := map[string]Status{}
			for len(out) < len(ctx) {
				ev, err := next(ep, EvSend)
				if err != nil {
					return nil, err
				}
				out[ev.Context.(string)] = ev.Status
				order = append(order, ev.Context.(string))
				ep.ReturnEvent(ev)
			}
			return out, nil
		}
		if err := ep.RMA(c, &msg, local, 0, srvWin, 0, n, RMAWrite, "write"); err != nil {
			return err
		}
		if err := ep.RMA(c, nil, fl, 0, srvWin, 1000, int64(len(fenced)), RMAWrite|RMAFence, "fenced"); err != nil {
			return err
		}
		if err := ep.RMA(c, nil, dst, 0, srvRO, 0, n, RMARead, "read"); err != nil {
			return err
		}
		sts, err := wait("write", "fenced", "read")
		if err != nil {
			return err
		}
		for k, st := range sts {
			if st != OK {
				return fmt.Errorf("%s: %w", k, st)
			}
		}
		b, _ := ep.Region(dst)
		readBack = append([]byte(nil), b...)
		// Errors: a guessed key, a region without the right, an unreliable connection.
		bad := srvWin
		bad.Key ^= 0x55
		badKey = ep.RMA(c, nil, local, 0, bad, 0, 100, RMAWrite, "bad key")
		noRight = ep.RMA(c, nil, local, 0, srvRO, 0, 100, RMAWrite, "no right")
		uu = ep.RMA(u, nil, local, 0, srvWin, 0, 100, RMAWrite, "uu")
		sts, err = wait("bad key", "no right")
		if err != nil {
			return err
		}
		badKeySt, noRightSt = sts["bad key"], sts["no right"]
		if err := ep.Send(c, Bytes([]byte("bye")), nil); err != nil {
			return err
		}
		return drain(ep, nil)
	})
	w.mustRun()
	require.Len(t, atCompletion, n, "the completion message arrived")
	assert.Equal(t, src[:1000], atCompletion[:1000], "the write was in place when its completion message arrived")
	assert.Equal(t, src[1000+len(fenced):], atCompletion[1000+len(fenced):])
	want := append(append(append([]byte(nil), src[:1000]...), fenced...), src[1000+len(fenced):]...)
	assert.Equal(t, want, finalWin, "the fenced write landed after the first")
	assert.Equal(t, remote, readBack, "the read brought the remote bytes")
	assert.Equal(t, []string{"write", "fenced", "read", "bad key", "no right"}, order[:5])
	assert.NoError(t, badKey)
	assert.NoError(t, noRight)
	assert.Equal(t, ErrInvalid, badKeySt, "the target NIC refused a guessed key")
	assert.Equal(t, ErrInvalid, noRightSt, "the target NIC refused a write into a read-only region")
	assert.ErrorIs(t, uu, ErrInvalid)
	assert.Equal(t, int64(2), w.fw(1).Stats.Refused)
	assert.Positive(t, w.fw(1).Stats.ReadResps)
}

// Same seed and parameters give the same digest and results on the serial engine and
// the parallel one with 1 and 2 workers, for every connection type.
func TestDeterministicAcrossWorkers(t *testing.T) {
	for _, a := range []Attr{UU, RU, RO} {
		var digests, results []string
		for _, o := range []actors.Options{serial, {Workers: 1}, {Workers: 2}} {
			cfg := DefaultBenchConfig()
			cfg.Attr, cfg.Size, cfg.Iters, cfg.Warmup = a, 512, 20, 2
			pp, err := PingPong(context.Background(), cfg, o)
			require.NoError(t, err)
			cfg.Window = 8
			st, err := Stream(context.Background(), cfg, o)
			require.NoError(t, err)
			digests = append(digests, pp.Report.Digest+"/"+st.Report.Digest)
			results = append(results, fmt.Sprint(pp.Latency, st.MsgRate))
		}
		assert.Equal(t, digests[0], digests[1], "%s", a)
		assert.Equal(t, digests[0], digests[2], "%s", a)
		assert.Equal(t, results[0], results[2], "%s", a)
	}
}

// An RO sender never gets more than ro_window messages ahead of its oldest
// unacknowledged one (a send past it is ENOBUFS, retried by the application), so the
// receiver's reorder buffer stays below the window however many messages overtake a
// lost one; before the window, a long stream under 1% loss filled every event with
// held messages before the retransmission timer fired and the receiver failed.
func TestROWindowBoundsReordering(t *testing.T) {
	p := DefaultParams()
	p.ROWindow = 8
	loss := func(w *machine.Params) { w.RXDMA.DropRate = actors.MustParseProb("0.05") }
	msgs := patterns(300, func(i int) int { return 8 + (i*37)%256 })
	w := newWorld(t, "2x1x1", p, loss)
	var got [][]byte
	sts := map[Status]int{}
	w.spawn(1, "server", func(pr *Process) error {
		ep, _ := pr.Open()
		if _, err := AcceptOne(ep); err != nil {
			return err
		}
		return pollUntil(ep, at(30_000), func(ev *Event) {
			if ev.Type == EvRecv {
				got = append(got, append([]byte(nil), ev.Data...))
			}
		})
	})
	w.spawn(0, "client", func(pr *Process) error {
		ep, _ := pr.Open()
		if _, err := dialSend(ep, 0, RO, msgs, 64, sts); err != nil {
			return err
		}
		return drain(ep, sts)
	})
	w.mustRun()
	sameMsgs(t, msgs, got, "ro: every message once, in order")
	srv := w.stacks[1].eps[0].Stats
	assert.Positive(t, srv.Held, "messages overtook a lost one")
	assert.Less(t, srv.PeakHeld, int64(p.ROWindow), "the reorder buffer stays below the window")
	assert.Positive(t, w.stacks[0].eps[0].Stats.NoBuffers, "the sender met the window")
}

// Memory registration failures (host.pin_fail_rate): cci_rma_register returns
// CCI_ENOMEM when a page cannot be pinned; the benchmark's application tries again
// and the RMA stream completes.
func TestRegistrationFailuresAreRetried(t *testing.T) {
	cfg := DefaultBenchConfig()
	cfg.Attr, cfg.RMA, cfg.Size, cfg.Window, cfg.Iters, cfg.Warmup = RU, true, 64<<10, 2, 8, 1
	cfg.Machine.Host.PinFailRate = actors.MustParseProb("0.05")
	res, err := Stream(context.Background(), cfg, actors.Options{Seed: 1})
	require.NoError(t, err)
	assert.Positive(t, res.Client.PinFailures+res.Server.PinFailures, "16 pages a region at 5%%: some pins fail")
	assert.Positive(t, res.Bandwidth)
	assert.Equal(t, "cci: out of memory", ErrNoMem.Error())
}
