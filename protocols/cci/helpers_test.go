package cci

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serial is the serial engine, with a bound on simulated time so that a test whose
// processes wait forever ends (and fails on its assertions) rather than polling on.
var serial = actors.Options{Engine: actors.Serial, End: actors.Time(0).Add(200 * actors.Millisecond)}

// world is a machine running CCI with test programs on its nodes.
type world struct {
	t      *testing.T
	g      *actors.Graph
	m      *machine.Machine
	stacks []*Stack
	p      Params
}

// newWorld builds a machine of the xt5 preset with topology dims ("2x1x1", mesh), CCI
// parameters p, and tweak applied to the machine parameters.
func newWorld(t *testing.T, dims string, p Params, tweak func(*machine.Params)) *world {
	t.Helper()
	mp, err := machine.Preset("xt5")
	require.NoError(t, err)
	mp.Torus, mp.Wrap = dims, "mesh"
	if tweak != nil {
		tweak(&mp)
	}
	g := actors.NewGraph()
	m, stacks, err := Build(g, mp, p)
	require.NoError(t, err)
	return &world{t: t, g: g, m: m, stacks: stacks, p: p}
}

// spawn runs prog as a process on node; an error fails the run, naming the process.
func (w *world) spawn(node int, name string, prog func(pr *Process) error) {
	w.t.Helper()
	require.NoError(w.t, w.stacks[node].Spawn(name, 0, func(pr *Process) {
		if err := prog(pr); err != nil {
			pr.p.Fatalf("%v", err)
		}
	}))
}

// run runs the model with opts and returns its report; a simulation error is returned.
func (w *world) run(opts actors.Options) (*actors.Report, error) {
	w.t.Helper()
	model, err := w.g.Build()
	require.NoError(w.t, err)
	return actors.Run(context.Background(), model, opts)
}

func (w *world) mustRun() *actors.Report {
	w.t.Helper()
	rep, err := w.run(serial)
	require.NoError(w.t, err)
	return rep
}

func (w *world) fw(node int) *Firmware { return w.m.Nodes[node].PPC.Firmware().(*Firmware) }

// next returns the next event of one of the given types, returning the others (a
// non-OK status among them is an error).
func next(ep *Endpoint, types ...EventType) (*Event, error) {
	for {
		ev, err := ep.WaitEvent()
		if err != nil {
			return nil, err
		}
		for _, t := range types {
			if ev.Type == t {
				return ev, nil
			}
		}
		if ev.Status != OK {
			return nil, fmt.Errorf("unexpected %s event: %w", ev.Type, ev.Status)
		}
		ep.ReturnEvent(ev)
	}
}

// recvN receives n messages and returns their payloads in arrival order.
func recvN(ep *Endpoint, n int) ([][]byte, error) {
	var out [][]byte
	for range n {
		ev, err := next(ep, EvRecv)
		if err != nil {
			return out, err
		}
		out = append(out, append([]byte(nil), ev.Data...))
		ep.ReturnEvent(ev)
	}
	return out, nil
}

// drain waits until every operation of ep is complete, collecting the statuses of
// the send events.
func drain(ep *Endpoint, sts map[Status]int) error {
	for len(ep.ops) > 0 || ep.evq.Len() > 0 {
		ev, err := ep.WaitEvent()
		if err != nil {
			return err
		}
		if ev.Type == EvSend && sts != nil {
			sts[ev.Status]++
		}
		ep.ReturnEvent(ev)
	}
	return nil
}

// sameMsgs asserts that got holds the payloads of want, in order, reporting the first
// difference rather than every byte.
func sameMsgs(t *testing.T, want, got [][]byte, what string) bool {
	t.Helper()
	if len(want) != len(got) {
		return assert.Fail(t, fmt.Sprintf("%s: %d messages, want %d", what, len(got), len(want)))
	}
	for i := range want {
		if !bytes.Equal(want[i], got[i]) {
			return assert.Fail(t, fmt.Sprintf("%s: message %d is %d bytes %.8x..., want %d bytes %.8x...", what, i, len(got[i]), got[i], len(want[i]), want[i]))
		}
	}
	return true
}

// pattern is a message payload that encodes i.
func pattern(i, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(i*31 + j*7 + i>>8)
	}
	if n >= 4 {
		b[0], b[1], b[2], b[3] = byte(i), byte(i>>8), byte(i>>16), 0xcc
	}
	return b
}

// dialSend connects ep to endpoint epID of node 1 with a connection of type a and
// sends msgs on it as sendAll does.
func dialSend(ep *Endpoint, epID int, a Attr, msgs [][]byte, window int, sts map[Status]int) (*Conn, error) {
	c, err := Dial(ep, 1, epID, a, Size(0))
	if err != nil {
		return nil, err
	}
	return c, sendAll(ep, c, msgs, window, sts)
}

// sendAll sends payloads on c, waiting for completions when TX space runs out, with at
// most window in flight; it returns when all are sent (not necessarily complete).
func sendAll(ep *Endpoint, c *Conn, msgs [][]byte, window int, sts map[Status]int) error {
	inflight := 0
	for i := 0; i < len(msgs); {
		if inflight < window {
			err := ep.Send(c, Bytes(msgs[i]), i)
			if err == nil {
				i++
				inflight++
				continue
			}
			if !errors.Is(err, ErrNoBuffers) {
				return err
			}
		}
		ev, err := ep.WaitEvent()
		if err != nil {
			return err
		}
		if ev.Type == EvSend {
			inflight--
			if sts != nil {
				sts[ev.Status]++
			}
		}
		ep.ReturnEvent(ev)
	}
	return nil
}
