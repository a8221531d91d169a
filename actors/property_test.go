package actors

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// tok is the message of the random models; its value depends on the sender's history,
// so any change in delivery order changes the digest through Fingerprint.
type tok struct{ v uint64 }

func (t tok) String() string      { return fmt.Sprintf("tok(%x)", t.v) }
func (t tok) Fingerprint() uint64 { return t.v }

// randActor sends a random number of messages over random ports, to itself and
// directly to random actors, until its send budget is spent.
type randActor struct {
	ports  []string
	budget int
	state  uint64
	failAt int // fail at the failAt-th receive, 0 = never
	recvd  int
	direct bool
	n      int // actors in the model
}

func (a *randActor) Ports() []string   { return a.ports }
func (a *randActor) Start(ctx Context) { a.act(ctx) }

func (a *randActor) Receive(ctx Context, m Msg) {
	a.recvd++
	a.state = mix64(a.state ^ m.(tok).v ^ uint64(ctx.Now()) ^ uint64(uint32(ctx.Port())))
	if a.recvd == a.failAt {
		ctx.Fatalf("injected failure after %d receives", a.recvd)
	}
	a.act(ctx)
	if a.recvd%2 == 0 { // hints, where the partition prefetches (TestPrefetchingChangesNoOutcome)
		Prefetch(ctx, &a.state, &a.ports)
	} else {
		Prefetch(ctx, (*int)(nil), (*int)(nil))
	}
}

func (a *randActor) act(ctx Context) {
	r := ctx.Rand()
	for n := r.IntN(3); n > 0 && a.budget > 0; n-- {
		a.budget--
		a.state = mix64(a.state + 1)
		m := tok{a.state}
		extra := Duration(r.IntN(3)) * Nanosecond // coarse delays make many same-time ties
		switch k := r.IntN(4); {
		case k < 2 && len(a.ports) > 0:
			ctx.Send(Port(r.IntN(len(a.ports))), m, extra)
		case k == 2 && a.direct:
			ctx.SendTo(ActorID(r.IntN(a.n)), m, extra)
		default:
			ctx.SendSelf(m, extra)
		}
	}
}

// randomModel is a seeded random actor graph: groups of actors named n[i].a[j], random
// fan-out, self-links, optional direct sends, and zero-latency links only inside a
// group (when zeroLinks is set).
type randomModel struct {
	seed      uint64
	zeroLinks bool
	fail      bool
}

func (rm randomModel) build(t testing.TB) *Model {
	r := rand.New(rand.NewPCG(rm.seed, 99))
	g := NewGraph()
	type ref struct {
		r     Ref
		group int
		ports []string
	}
	var refs []ref
	direct := r.IntN(2) == 0
	groups := 1 + r.IntN(6)
	total := 0
	for gi := range groups {
		for j := range 1 + r.IntN(4) {
			ports := make([]string, r.IntN(4))
			for p := range ports {
				ports[p] = fmt.Sprintf("p%d", p)
			}
			a := &randActor{ports: ports, budget: 5 + r.IntN(40), direct: direct}
			if rm.fail && r.IntN(8) == 0 {
				a.failAt = 1 + r.IntN(10)
			}
			refs = append(refs, ref{g.Add(Indexed("n", gi)+"."+Indexed("a", j), a), gi, ports})
			total++
		}
	}
	lats := []Duration{Nanosecond, 2 * Nanosecond, 5 * Nanosecond, 1500 * Picosecond}
	for _, src := range refs {
		for _, p := range src.ports {
			dst := refs[r.IntN(len(refs))]
			if len(dst.ports) == 0 {
				dst = src
			}
			lat := lats[r.IntN(len(lats))]
			if rm.zeroLinks && dst.group == src.group && r.IntN(2) == 0 {
				lat = 0
			}
			g.Link(src.r.Port(p), dst.r.Port(dst.ports[r.IntN(len(dst.ports))]), lat)
		}
	}
	if direct {
		g.SetDirectLatency(Duration(1+r.IntN(3)) * Nanosecond)
	}
	m, err := g.Build()
	require.NoError(t, err)
	for id := range m.NumActors() {
		m.Actor(ActorID(id)).(*randActor).n = total
	}
	return m
}

type outcome struct {
	events uint64
	digest string
	blocks []BlockEvents // the events by kind of actor
	err    string
}

func (rm randomModel) run(t testing.TB, opts Options) (outcome, error) {
	opts.Seed = rm.seed
	rep, err := Run(context.Background(), rm.build(t), opts)
	if err != nil {
		if _, ok := err.(*SimError); ok {
			return outcome{err: err.Error()}, nil
		}
		return outcome{}, err
	}
	return outcome{events: rep.Events, digest: rep.Digest, blocks: rep.Blocks}, nil
}

// Property: on random graphs, the parallel engine with every worker count and every
// partitioning delivers exactly what the serial engine delivers (same digest, same
// event count, same first failure), and never delivers an event into an actor's past
// (the engine itself fails the run if it would).
func TestParallelMatchesSerialOnRandomGraphs(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 15
	}
	for s := range seeds {
		rm := randomModel{seed: uint64(s), zeroLinks: s%3 == 1, fail: s%4 == 3}
		ref, err := rm.run(t, Options{Engine: Serial})
		require.NoError(t, err)
		for _, part := range []Partitioner{Block{}, Node{}, Auto{}} {
			for _, w := range []int{1, 2, 4, 8} {
				for _, sync := range []SyncMode{SyncWindow, SyncHorizon} {
					got, err := rm.run(t, Options{Workers: w, Partitioner: part, Sync: sync})
					if err != nil && errors.Is(err, ErrConfig) {
						// Expected refusals: zero-latency links across block partitions,
						// horizon mode with fewer workers than partitions.
						require.True(t, (rm.zeroLinks && part.Name() == "block") || sync == SyncHorizon, err.Error())
						continue
					}
					require.NoError(t, err, "seed %d %s workers %d %s", s, part.Name(), w, sync)
					require.Equal(t, ref, got, "seed %d: parallel (%s, %d workers, %s) differs from serial; reproduce with "+
						"go test ./actors -run TestParallelMatchesSerialOnRandomGraphs (randomModel{seed: %d})", s, part.Name(), w, sync, s)
				}
			}
		}
	}
}

// Prefetching is a hint: with every partition prefetching, the random graphs give the
// serial engine's outcomes (the models of the other tests are below the size that
// turns it on).
func TestPrefetchingChangesNoOutcome(t *testing.T) {
	defer func(n int) { prefetchMinActors = n }(prefetchMinActors)
	prefetchMinActors = 0
	for s := range 12 {
		rm := randomModel{seed: uint64(s), fail: s%4 == 3}
		ref, err := rm.run(t, Options{Engine: Serial})
		require.NoError(t, err)
		for _, opts := range []Options{{Workers: 1, Partitioner: Node{}}, {Workers: 2, Partitioner: Node{}},
			{Workers: 2, Sync: SyncHorizon}} {
			got, err := rm.run(t, opts)
			require.NoError(t, err)
			require.Equal(t, ref, got, "seed %d, %d workers, %s", s, opts.Workers, opts.Sync)
		}
	}
}
