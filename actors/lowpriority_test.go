package actors

import (
	"iter"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// coroNode is a ringNode whose state goes through a coroutine (iter.Pull), as a host's
// programs do: resumed at every event, never done, stopped by Finish.
type coroNode struct {
	ringNode
	in   uint64
	next func() (uint64, bool)
	stop func()
}

func (a *coroNode) Start(ctx Context) {
	a.next, a.stop = iter.Pull(func(yield func(uint64) bool) {
		for s := uint64(1); yield(s); {
			s = mix64(s ^ a.in)
		}
	})
	a.ringNode.Start(ctx)
}

func (a *coroNode) Receive(ctx Context, m Msg) {
	a.in = m.(tok).v
	v, _ := a.next()
	a.ringNode.Receive(ctx, tok{v})
}

func (a *coroNode) Finish() {
	if a.stop != nil {
		a.stop()
	}
}

func coroRing(t testing.TB, n int) *Model {
	g := NewGraph()
	ringGraph(g, n, "c[%d]", func() Actor { return &coroNode{ringNode: ringNode{step: 3 * Nanosecond}} })
	m, err := g.Build()
	require.NoError(t, err)
	return m
}

// With LowPriority every worker's goroutine is locked to its thread, and the runtime
// resumes and stops a coroutine only on the thread it began on (else it ends the
// process): partitions then stay on their worker, and Finish runs there. A ring of
// coroutine actors on two workers, and across two processes, delivers what the serial
// engine delivers.
func TestLowPriorityKeepsCoroutinesOnTheirThreads(t *testing.T) {
	// The locking is what this tests: the priority itself, in a test binary beside
	// others, would only let them take its CPU.
	defer func(f func() error) { lowerThread = f }(lowerThread)
	lowerThread = func() error { return nil }

	const nodes = 10
	opts := Options{End: Time(2 * Microsecond), Partitioner: Node{}, Workers: 2, LowPriority: true}
	serial, err := Run(t.Context(), coroRing(t, nodes), Options{Engine: Serial, End: opts.End})
	require.NoError(t, err)
	for _, sync := range []SyncMode{SyncWindow, SyncHorizon} {
		opts.Sync = sync
		if sync == SyncHorizon {
			opts.Workers = nodes // a worker per partition
		}
		rep, err := Run(t.Context(), coroRing(t, nodes), opts)
		require.NoError(t, err, sync)
		assert.Equal(t, serial.Digest, rep.Digest, sync)
	}

	opts.Sync, opts.Workers = SyncWindow, 2
	c := newTestCluster(t, 1)
	res := c.run(func(int) *Model { return coroRing(t, nodes) }, opts, 1)
	for p, runs := range res {
		require.Len(t, runs, 1)
		require.NoError(t, runs[0].err, "process %d", p)
		assert.Equal(t, serial.Digest, runs[0].rep.Digest, "process %d", p)
	}
}
