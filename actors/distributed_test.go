package actors

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func init() {
	RegisterCodec("actors.tok", func(e *Encoder, t tok) { e.Fixed64(t.v) }, func(d *Decoder) tok { return tok{d.Fixed64()} })
}

// cluster is a coordinator and its workers in this test process, each with its own
// endpoint on a loopback port: frames between them go through gRPC as between
// processes.
type cluster struct {
	t         testing.TB
	listeners []*Listener
}

func newTestCluster(t testing.TB, workers int) *cluster {
	c := &cluster{t: t}
	for range workers {
		l, err := Listen(ClusterConfig{Timeout: 5 * time.Second})
		require.NoError(t, err)
		c.listeners = append(c.listeners, l)
	}
	t.Cleanup(func() {
		for _, l := range c.listeners {
			l.Close()
		}
	})
	return c
}

func (c *cluster) addrs() []string {
	var a []string
	for _, l := range c.listeners {
		a = append(a, l.Addr())
	}
	return a
}

// result is what one process of a distributed run returned.
type result struct {
	rep *Report
	err error
}

// run runs one session of runs runs: every process builds each model with build and
// runs it with opts (the seed of run k is seed(k) if set). It returns the results of
// every process, coordinator first, per run.
func (c *cluster) run(build func(run int) *Model, opts Options, runs int) [][]result {
	return c.runSeeded(build, opts, runs, nil)
}

func (c *cluster) runSeeded(build func(run int) *Model, opts Options, runs int, seed func(int) uint64) [][]result {
	t := c.t
	ctx := context.Background()
	out := make([][]result, len(c.listeners)+1)
	var wg sync.WaitGroup
	for i, l := range c.listeners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := l.Accept(ctx)
			if !assert.NoError(t, err) {
				return
			}
			if !assert.NoError(t, s.Confirm("cfg")) {
				s.Close(errors.New("confirm failed"))
				return
			}
			o := opts
			o.Cluster = s
			var last error
			for k := range runs {
				if seed != nil {
					o.Seed = seed(k)
				}
				rep, err := Run(ctx, build(k), o)
				out[i+1] = append(out[i+1], result{rep, err})
				last = err
			}
			s.Close(last)
		}()
	}
	cl, err := Connect(ctx, ClusterConfig{Timeout: 5 * time.Second}, c.addrs(), Hello{ConfigHash: "cfg"})
	require.NoError(t, err)
	o := opts
	o.Cluster = cl
	for k := range runs {
		if seed != nil {
			o.Seed = seed(k)
		}
		rep, err := Run(ctx, build(k), o)
		out[0] = append(out[0], result{rep, err})
	}
	cl.Close(nil)
	wg.Wait()
	return out
}

// Property: a run split over 2 or 3 processes delivers exactly what the serial engine
// delivers (digest, events, first failure), in every process, for every partitioning
// and worker count; several runs share one session.
func TestDistributedMatchesSerialOnRandomGraphs(t *testing.T) {
	seeds := 24
	if testing.Short() {
		seeds = 8
	}
	for _, procs := range []int{2, 3} {
		c := newTestCluster(t, procs-1)
		for _, part := range []Partitioner{Block{}, Node{}, Auto{}} {
			for _, w := range []int{1, 2} {
				var refs []outcome
				var models []randomModel
				for s := range seeds {
					rm := randomModel{seed: uint64(s), zeroLinks: s%3 == 1 && part.Name() != "block", fail: s%4 == 3}
					ref, err := rm.run(t, Options{Engine: Serial})
					require.NoError(t, err)
					refs = append(refs, ref)
					models = append(models, rm)
				}
				res := c.runSeeded(func(k int) *Model { return models[k].build(t) }, Options{Workers: w, Partitioner: part}, seeds,
					func(k int) uint64 { return models[k].seed })
				for p, runs := range res {
					require.Len(t, runs, seeds, "process %d", p)
					for k, r := range runs {
						got := outcome{}
						switch {
						case r.err == nil:
							got = outcome{events: r.rep.Events, digest: r.rep.Digest, blocks: r.rep.Blocks}
							assert.Equal(t, procs, r.rep.Processes)
						default:
							var se *SimError
							require.True(t, errors.As(r.err, &se), "process %d run %d: %v", p, k, r.err)
							got = outcome{err: r.err.Error()}
						}
						require.Equal(t, refs[k], got, "%d processes, %s, %d workers, seed %d, process %d", procs, part.Name(), w, k, p)
					}
				}
			}
		}
	}
}

// plainMsg has no codec: crossing processes is a configuration error naming it.
type plainMsg struct{}

func (plainMsg) String() string { return "plain" }

type plainSender struct{ sender string }

func (a *plainSender) Ports() []string { return []string{"out"} }
func (a *plainSender) Start(ctx Context) {
	if ctx.Name() == a.sender {
		ctx.Send(0, plainMsg{}, 0)
	}
}
func (a *plainSender) Receive(Context, Msg) {}

// Sent by the coordinator's process or by the worker's, the message is named: the
// coordinator reports a worker's encoding error before the hole it left in the batch.
func TestDistributedUnregisteredMessageIsAConfigError(t *testing.T) {
	for _, sender := range []string{"n[0]", "n[1]"} {
		c := newTestCluster(t, 1)
		build := func(int) *Model {
			g := NewGraph()
			a := g.Add("n[0]", &plainSender{sender: sender})
			b := g.Add("n[1]", &plainSender{sender: sender})
			g.Connect(a.Port("out"), b.Port("out"), Nanosecond)
			m, err := g.Build()
			require.NoError(t, err)
			return m
		}
		res := c.run(build, Options{Workers: 1, Partitioner: Block{}}, 1)
		for p := range res {
			err := res[p][0].err
			require.Error(t, err, "sender %s, process %d", sender, p)
			assert.ErrorIs(t, err, ErrConfig, "sender %s, process %d", sender, p)
			assert.Contains(t, err.Error(), "actors.plainMsg has no codec", "sender %s, process %d", sender, p)
		}
		other := map[string]string{"n[0]": "n[1]", "n[1]": "n[0]"}[sender]
		assert.Contains(t, res[0][0].err.Error(), "from "+sender+" to "+other+".out")
	}
}

func TestDistributedRefusesConfigurationMismatch(t *testing.T) {
	c := newTestCluster(t, 1)
	ctx := context.Background()
	werr := make(chan error, 1)
	go func() {
		s, err := c.listeners[0].Accept(ctx)
		if err != nil {
			werr <- err
			return
		}
		err = s.Confirm("worker-hash")
		s.Close(err)
		werr <- err
	}()
	_, err := Connect(ctx, ClusterConfig{Timeout: 5 * time.Second}, c.addrs(), Hello{ConfigHash: "coordinator-hash"})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "configuration mismatch")
	assert.Contains(t, err.Error(), c.addrs()[0])
	err = <-werr
	assert.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "coordinator-hash")
}

// A worker told to listen on a host name keeps it as its address: peers reach it by the
// name it was given (its Addr), "localhost:PORT" here, where protoactor would otherwise
// advertise the address it bound ("127.0.0.1:PORT") and drop frames for the name.
func TestDistributedPeerByHostName(t *testing.T) {
	l, err := Listen(ClusterConfig{Listen: "localhost:0", Timeout: 5 * time.Second})
	require.NoError(t, err)
	defer l.Close()
	require.True(t, strings.HasPrefix(l.Addr(), "localhost:"), l.Addr())
	ctx := context.Background()
	werr := make(chan error, 1)
	go func() {
		s, err := l.Accept(ctx)
		if err == nil {
			err = s.Confirm("hash")
			s.Close(err)
		}
		werr <- err
	}()
	c, err := Connect(ctx, ClusterConfig{Timeout: 5 * time.Second}, []string{l.Addr()}, Hello{ConfigHash: "hash"})
	require.NoError(t, err)
	c.Close(nil)
	require.NoError(t, <-werr)
}

func TestDistributedRefusesVersionMismatch(t *testing.T) {
	l, err := Listen(ClusterConfig{Version: "v-worker", Timeout: 5 * time.Second})
	require.NoError(t, err)
	defer l.Close()
	werr := make(chan error, 1)
	go func() {
		_, err := l.Accept(context.Background())
		werr <- err
	}()
	_, err = Connect(context.Background(), ClusterConfig{Version: "v-coord", Timeout: 5 * time.Second}, []string{l.Addr()}, Hello{})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "version mismatch")
	err = <-werr
	assert.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), `"v-coord"`)
}

func TestDistributedUnreachablePeer(t *testing.T) {
	// A port that was free a moment ago: nothing listens there.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := lis.Addr().String()
	lis.Close()
	start := time.Now()
	_, err = Connect(context.Background(), ClusterConfig{Timeout: 500 * time.Millisecond}, []string{addr}, Hello{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot reach worker "+addr)
	assert.Less(t, time.Since(start), 20*time.Second) // bounded: never a hang
}

func TestConnectRefusesMalformedPeers(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1":       "want host:port",
		"127.0.0.1:":      `port "" is not a number in 1..65535`,
		"127.0.0.1:99999": `port "99999" is not a number in 1..65535`,
		"127.0.0.1:0":     `port "0" is not a number in 1..65535`,
		"127.0.0.1:http":  `port "http" is not a number in 1..65535`,
		":7001":           "has no host",
	} {
		_, err := Connect(context.Background(), ClusterConfig{Timeout: 500 * time.Millisecond}, []string{addr}, Hello{})
		require.Error(t, err, addr)
		assert.ErrorIs(t, err, ErrConfig, addr)
		assert.Contains(t, err.Error(), want, addr)
	}
}

func TestListenRefusesNonLoopback(t *testing.T) {
	_, err := Listen(ClusterConfig{Listen: "0.0.0.0:0"})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "not a loopback address")
	_, err = Listen(ClusterConfig{Listen: "nonsense"})
	assert.ErrorIs(t, err, ErrConfig)
}

// The processes of a session on this machine are those at a loopback address, at
// localhost, at an address of one of its interfaces, or at a host name that resolves to
// one of those (a worker told to listen on a name is named so: TestDistributedPeerByHostName).
func TestOnThisMachine(t *testing.T) {
	local := []net.IP{net.ParseIP("192.0.2.7"), net.ParseIP("2001:db8::7")}
	names := map[string][]net.IP{ // a resolver's answers
		"node12.example": {net.ParseIP("192.0.2.99")},
		"self.example":   {net.ParseIP("198.51.100.1"), net.ParseIP("2001:db8::7")},
		"lo.example":     {net.ParseIP("127.0.1.1")},
	}
	lookup := func(host string) []net.IP { return names[host] }
	for addr, want := range map[string]bool{
		"127.0.0.1:7000":      true,
		"127.0.0.2:7000":      true,
		"[::1]:7000":          true,
		"localhost:7000":      true,
		"192.0.2.7:7000":      true,
		"[2001:db8::7]:80":    true,
		"192.0.2.8:7000":      false,
		"node12.example:7000": false, // another machine's address
		"self.example:7000":   true,  // one of its addresses is this machine's
		"lo.example:7000":     true,  // a loopback address (a Debian host's own name)
		"gone.example:7000":   false, // does not resolve
		"192.0.2.7":           false, // no port: not an address a process listens on
	} {
		assert.Equal(t, want, sameMachine(addr, local, lookup), addr)
	}
	assert.False(t, sameMachine("self.example:7000", local, nil), "a name not looked up")
	c := &Cluster{addrs: []string{"192.0.2.8:7000", "127.0.0.1:7001", "[::1]:7002", "198.51.100.3:7003", "node12.invalid:7004"}}
	assert.Equal(t, 3, c.OnThisMachine(), "itself (whatever its address) and the two at loopback addresses")
}

// A worker that stops answering mid-run ends the coordinator's run, within the peer
// timeout, with an error naming it; the worker's own run ends too. (The test of a
// killed worker process is in cmd/run.)
func TestDistributedSilentPeerEndsTheRun(t *testing.T) {
	c := newTestCluster(t, 1)
	ctx := context.Background()
	werr := make(chan error, 1)
	go func() {
		s, err := c.listeners[0].Accept(ctx)
		if err != nil {
			werr <- err
			return
		}
		_ = s.Confirm("")
		go func() {
			time.Sleep(200 * time.Millisecond)
			s.mute.Store(true) // no more frames, no more heartbeats: as if the process hung
		}()
		_, err = Run(ctx, longModel(t), Options{Workers: 1, Partitioner: Block{}, Cluster: s})
		s.Close(err)
		werr <- err
	}()
	cl, err := Connect(ctx, ClusterConfig{Timeout: 700 * time.Millisecond}, c.addrs(), Hello{})
	require.NoError(t, err)
	defer cl.Close(nil)
	start := time.Now()
	_, err = Run(ctx, longModel(t), Options{Workers: 1, Partitioner: Block{}, Cluster: cl})
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrConfig))
	assert.Contains(t, err.Error(), "worker "+c.addrs()[0]+" (process 1) has not answered for")
	assert.Less(t, time.Since(start), 30*time.Second)
	err = <-werr
	require.Error(t, err) // the worker's run ends too (the coordinator ended the session)
	assert.Contains(t, err.Error(), "coordinator")
}

// pinger sends a token back and forth forever.
type pinger struct{}

func (pinger) Ports() []string { return []string{"out"} }
func (pinger) Start(ctx Context) {
	if ctx.Name() == "n[0]" {
		ctx.Send(0, tok{1}, 0)
	}
}
func (pinger) Receive(ctx Context, m Msg) { ctx.Send(0, m, 0) }

func longModel(t testing.TB) *Model {
	g := NewGraph()
	a := g.Add("n[0]", pinger{})
	b := g.Add("n[1]", pinger{})
	g.Connect(a.Port("out"), b.Port("out"), Nanosecond)
	m, err := g.Build()
	require.NoError(t, err)
	return m
}

func TestDistributedExportsReachEveryProcess(t *testing.T) {
	c := newTestCluster(t, 1)
	type state struct {
		count int64
		last  Time
		seen  []int64
	}
	var groups [][]*state // one per model built: each process builds its own, concurrently
	var mu sync.Mutex
	build := func(int) *Model {
		g := NewGraph()
		var refs []Ref
		var states []*state
		for i := range 4 {
			st := &state{}
			states = append(states, st)
			a := &counter{st: &st.count, last: &st.last, seen: &st.seen}
			refs = append(refs, g.Add(Indexed("n", i), a))
			g.Export(refs[i].Name(), Vars{&st.count, &st.last, &st.seen})
		}
		mu.Lock()
		groups = append(groups, states)
		mu.Unlock()
		for i := range 4 {
			g.Link(refs[i].Port("out"), refs[(i+1)%4].Port("in"), Nanosecond)
		}
		m, err := g.Build()
		require.NoError(t, err)
		return m
	}
	ref := build(0)
	_, err := Run(context.Background(), ref, Options{Engine: Serial, End: Time(50 * Nanosecond)})
	require.NoError(t, err)
	var want []state
	for _, s := range groups[0] {
		want = append(want, *s)
	}
	require.NotZero(t, want[0].count)
	groups = nil
	res := c.run(build, Options{Workers: 2, Partitioner: Block{}, End: Time(50 * Nanosecond)}, 1)
	require.NoError(t, res[0][0].err)
	require.NoError(t, res[1][0].err)
	require.Len(t, groups, 2)
	for p := range 2 { // both processes see every actor's state, including the other's
		for i := range 4 {
			assert.Equal(t, want[i], *groups[p][i], "process %d, actor %d", p, i)
		}
	}
}

// counter passes a token around a ring and counts.
type counter struct {
	st   *int64
	last *Time
	seen *[]int64
}

func (a *counter) Ports() []string { return []string{"out", "in"} }
func (a *counter) Start(ctx Context) {
	if ctx.Name() == "n[0]" {
		ctx.Send(0, tok{1}, 0)
	}
}
func (a *counter) Receive(ctx Context, m Msg) {
	*a.st++
	*a.last = ctx.Now()
	*a.seen = append(*a.seen, int64(m.(tok).v))
	ctx.Send(0, tok{m.(tok).v + 1}, 0)
}

func TestDistributedFingerprintMismatch(t *testing.T) {
	c := newTestCluster(t, 1)
	var n sync.Mutex
	calls := 0
	build := func(int) *Model {
		n.Lock()
		calls++
		k := calls
		n.Unlock()
		g := NewGraph()
		for i := range 2 + k%2 { // the two processes build different models
			g.Add(Indexed("n", i), idle{})
		}
		m, err := g.Build()
		require.NoError(t, err)
		return m
	}
	res := c.run(build, Options{Workers: 1, Partitioner: Block{}}, 1)
	for p := range res {
		require.Error(t, res[p][0].err, "process %d", p)
		assert.ErrorIs(t, res[p][0].err, ErrConfig)
		assert.Contains(t, res[p][0].err.Error(), "another model", "process %d", p)
	}
}

type idle struct{}

func (idle) Receive(Context, Msg) {}

func TestSerialEngineRefusesCluster(t *testing.T) {
	_, err := Run(context.Background(), longModel(t), Options{Engine: Serial, Cluster: &Cluster{}})
	assert.ErrorIs(t, err, ErrConfig)
}

func ExampleLayout_String() {
	fmt.Println(Layout{Partitioning: "slab", Partitions: []int{10, 12}, CutLinks: 8, Lookahead: 53 * Nanosecond,
		Sync: SyncWindow, Processes: 2, ProcessParts: []int{1, 1}})
	// Output: slab: 2 partitions of [10 12] actors, 8 cut links, lookahead 53ns, sync window, 2 processes with [1 1] partitions
}

// A worker that has the current run's final state (it acked it) may end its session
// or go away before the other workers have acked theirs: the coordinator's run goes on
// (it fails only the next run, which the worker will not take part in). Before, a
// --once worker that exited right after its ack failed the coordinator's session, which
// then closed under a worker that had not yet processed its final state.
func TestClusterWorkerMayLeaveOnceItHasTheFinalState(t *testing.T) {
	newCoordinator := func() *Cluster {
		c := &Cluster{addrs: []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}, heard: make([]atomic.Int64, 3),
			accepted: []bool{false, true, true}, failed: make(chan struct{}), stop: make(chan struct{}), running: true, runs: 1}
		c.mute.Store(true) // nothing to send to: the peers are not there
		return c
	}
	end := func(from int) *frame {
		var e Encoder
		e.String("")
		return &frame{kind: fEnd, from: from, to: 0, body: e.Bytes()}
	}

	c := newCoordinator()
	c.acked = map[int]bool{1: true} // worker 1 acked run 0's final state, worker 2 not yet
	c.receive(end(1))
	c.lost(c.addrs[1])
	require.NoError(t, c.Err(), "worker 1 has everything the run needs from it")
	assert.Contains(t, c.ended, 1)
	c.running = false
	assert.ErrorContains(t, c.beginRun(&distRun{}), "worker 127.0.0.1:2 (process 1) ended its session early",
		"the next run fails on it")

	c = newCoordinator() // a worker that goes away before its ack fails the run at once
	c.acked = map[int]bool{1: true}
	c.lost(c.addrs[2])
	assert.ErrorContains(t, c.Err(), "lost the connection to worker 127.0.0.1:3 (process 2)")
	c = newCoordinator()
	c.receive(end(2))
	assert.ErrorContains(t, c.Err(), "worker 127.0.0.1:3 (process 2) ended its session early")
}
