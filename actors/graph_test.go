package actors

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nop is an actor that ignores everything; ported gives it ports.
type nop struct{ ports []string }

func (n *nop) Receive(Context, Msg) {}
func (n *nop) Ports() []string      { return n.ports }

func ported(names ...string) *nop { return &nop{ports: names} }

func TestValidName(t *testing.T) {
	for _, ok := range []string{"a", "node[1,2,3].ppc", "router[0,0,0].port[3]", "lp[10]", "x_y-z.w2", "_a"} {
		assert.NoError(t, ValidName(ok), ok)
	}
	for _, bad := range []string{"", ".", "a.", ".a", "1a", "a[", "a[]", "a[1", "a[-1]", "a[01]", "a[1,]", "a b", "a[1]x", "ä"} {
		err := ValidName(bad)
		if assert.Error(t, err, bad) {
			assert.ErrorIs(t, err, ErrConfig)
		}
	}
	assert.Equal(t, "node[1,2,3]", Indexed("node", 1, 2, 3))
	assert.Equal(t, "node[1,2,3]", TopSegment("node[1,2,3].ppc.core"))
}

// Ids follow name order, not construction order.
func TestIDsFromSortedNames(t *testing.T) {
	g := NewGraph()
	g.Add("c", &nop{})
	g.Add("a", &nop{})
	g.Add("b[2]", &nop{})
	g.Add("b[10]", &nop{})
	m, err := g.Build()
	require.NoError(t, err)
	var names []string
	for id := range m.NumActors() {
		names = append(names, m.Name(ActorID(id)))
	}
	assert.Equal(t, []string{"a", "b[10]", "b[2]", "c"}, names)
	id, ok := m.ID("b[2]")
	assert.True(t, ok)
	assert.Equal(t, ActorID(2), id)
	_, ok = m.ID("zz")
	assert.False(t, ok)
}

// Each builds the same model as a loop, and after its first part the graph's tables
// hold the other parts without growing again.
func TestEachReservesTheOtherParts(t *testing.T) {
	build := func(g *Graph, i int) {
		a := g.Add(Indexed("ring", i), ported("in", "out"))
		b := g.Add(Indexed("tap", i), ported("in"))
		g.Link(a.Port("out"), b.Port("in"), Duration(i+1))
		g.Export(a.Name(), Vars{})
	}
	const n = 50
	looped, each := NewGraph(), NewGraph()
	for i := range n {
		build(looped, i)
	}
	var order []int
	each.Each(n, func(i int) {
		order = append(order, i)
		if i == 1 {
			assert.Equal(t, 2*n, cap(each.blocks), "room for every part after the first")
			assert.Equal(t, n, cap(each.links))
			assert.Equal(t, n, cap(each.exports))
		}
		build(each, i)
	})
	for i := range order {
		assert.Equal(t, i, order[i])
	}
	assert.Len(t, each.blocks, 2*n)
	assert.Equal(t, len(each.blocks), cap(each.blocks), "grown once, to the size needed")
	assert.Equal(t, looped.links, each.links)
	for i := range looped.blocks {
		assert.Equal(t, looped.blocks[i].name, each.blocks[i].name)
	}
	for _, g := range []*Graph{looped, each} { // unconnected "in" ports of the rings
		for i := range n {
			g.Unconnected(PortRef{b: int32(2 * i), p: 0})
		}
	}
	ml, err := looped.Build()
	require.NoError(t, err)
	me, err := each.Build()
	require.NoError(t, err)
	assert.Equal(t, ml.links, me.links)
	assert.Equal(t, ml.names, me.names)
}

func TestBuildRejectsBadGraphs(t *testing.T) {
	cases := map[string]struct {
		build func(g *Graph)
		want  []string
	}{
		"duplicate name": {func(g *Graph) {
			g.Add("node[1].ppc", &nop{})
			g.Add("node[1].ppc", &nop{})
		}, []string{`duplicate actor name "node[1].ppc"`}},
		"invalid name": {func(g *Graph) { g.Add("node[x]", &nop{}) }, []string{`invalid actor name "node[x]"`}},
		"dangling port": {func(g *Graph) {
			a := g.Add("a", ported("tx", "rx"))
			g.Link(a.Port("tx"), a.Port("tx"), 1)
		}, []string{"port a.rx is not connected"}},
		"unknown port": {func(g *Graph) {
			a := g.Add("a", ported("tx"))
			g.Link(a.Port("tx"), a.Port("nope"), 1)
		}, []string{`actor "a" has no port "nope" (ports: tx)`}},
		"negative latency": {func(g *Graph) {
			a, b := g.Add("a", ported("x")), g.Add("b", ported("y"))
			g.Connect(a.Port("x"), b.Port("y"), -5*Nanosecond)
		}, []string{"link a.x -> b.y has negative latency -5ns", "link b.y -> a.x has negative latency -5ns"}},
		"two outgoing links": {func(g *Graph) {
			a, b := g.Add("a", ported("x")), g.Add("b", ported("y"))
			g.Link(a.Port("x"), b.Port("y"), 1)
			g.Link(a.Port("x"), a.Port("x"), 1)
			g.Link(b.Port("y"), a.Port("x"), 1)
		}, []string{"port a.x already has an outgoing link (to b.y)"}},
		"negative direct latency": {func(g *Graph) {
			g.Add("a", &nop{})
			g.SetDirectLatency(-1)
		}, []string{"direct-send latency -1ps is negative"}},
		"nil actor": {func(g *Graph) { g.Add("a", nil) }, []string{`actor "a" is nil`}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			g := NewGraph()
			c.build(g)
			_, err := g.Build()
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrConfig)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestUnconnectedPortIsAllowed(t *testing.T) {
	g := NewGraph()
	a := g.Add("a", ported("wrap"))
	g.Unconnected(a.Port("wrap"))
	m, err := g.Build()
	require.NoError(t, err)
	_, ok := m.route(0, 0)
	assert.False(t, ok)
	assert.Equal(t, []string{"wrap"}, m.Ports(0))
}

func TestLinksSortedForPartitioners(t *testing.T) {
	g := NewGraph()
	b := g.Add("b", ported("p", "q"))
	a := g.Add("a", ported("p"))
	g.Link(b.Port("q"), a.Port("p"), 3)
	g.Link(a.Port("p"), b.Port("p"), 2)
	g.Link(b.Port("p"), b.Port("q"), 1)
	m, err := g.Build()
	require.NoError(t, err)
	assert.Equal(t, []Link{
		{From: 0, FromPort: 0, To: 1, ToPort: 0, Latency: 2},
		{From: 1, FromPort: 0, To: 1, ToPort: 1, Latency: 1},
		{From: 1, FromPort: 1, To: 0, ToPort: 0, Latency: 3},
	}, m.Links())
}

// What the builders describe reaches the report, for every engine, unchanged by
// later graphs; the digest does not depend on it.
func TestDescribeReachesTheReport(t *testing.T) {
	run := func(engine EngineKind, describe bool) *Report {
		g := NewGraph()
		g.Add("a", idle{})
		if describe {
			g.Describe("torus", "4x4x4")
			g.Describe("nodes", "8")
			g.Describe("nodes", "64")
		}
		m, err := g.Build()
		require.NoError(t, err)
		rep, err := Run(context.Background(), m, Options{Engine: engine, Workers: 1})
		require.NoError(t, err)
		return rep
	}
	for _, e := range []EngineKind{Serial, Parallel} {
		rep := run(e, true)
		assert.Equal(t, map[string]string{"torus": "4x4x4", "nodes": "64"}, rep.Model, e)
		plain := run(e, false)
		assert.Nil(t, plain.Model)
		assert.Equal(t, plain.Digest, rep.Digest)
	}
}

// allocator allocates on every event it receives.
type allocator struct{ sink []*[64]byte }

func (a *allocator) Receive(ctx Context, m Msg) {
	a.sink = append(a.sink[:0], new([64]byte))
	if ctx.Now() < Time(1000*Nanosecond) {
		ctx.SendSelf(m, Nanosecond)
	}
}

// The report counts the heap allocations made during the run.
func TestReportCountsAllocations(t *testing.T) {
	g := NewGraph()
	a := &allocator{}
	g.Add("a", &starter{a})
	m, err := g.Build()
	require.NoError(t, err)
	rep, err := Run(context.Background(), m, Options{Engine: Serial})
	require.NoError(t, err)
	require.Greater(t, rep.Events, uint64(900))
	assert.GreaterOrEqual(t, rep.Allocs, rep.Events, "one allocation per event at least")
}

// starter sends its actor a first message at start.
type starter struct{ *allocator }

// setup allocates n values at its Start, then runs events that allocate nothing.
type setup struct {
	n    int
	keep []*[64]byte
}

func (a *setup) Start(ctx Context) {
	for range a.n {
		a.keep = append(a.keep, new([64]byte))
	}
	ctx.SendSelf(note("go"), Nanosecond)
}

func (a *setup) Receive(ctx Context, m Msg) {
	if ctx.Now() < Time(1000*Nanosecond) {
		ctx.SendSelf(m, Nanosecond)
	}
}

// The report tells the allocations before the first event (the actors' Start) from
// those the events made, in both engines: here 20,000 at Start and none per event,
// then one per event and none at Start.
func TestReportSeparatesStartAllocations(t *testing.T) {
	for _, e := range []EngineKind{Serial, Parallel} {
		g := NewGraph()
		g.Add("a", &setup{n: 20000})
		m, err := g.Build()
		require.NoError(t, err)
		rep, err := Run(context.Background(), m, Options{Engine: e, Workers: 1})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, rep.StartAllocs, uint64(20000), e)
		assert.GreaterOrEqual(t, rep.Allocs, rep.StartAllocs, e)
		assert.Less(t, rep.Allocs-rep.StartAllocs, uint64(20000), e)

		g = NewGraph()
		g.Add("a", &starter{&allocator{}})
		m, err = g.Build()
		require.NoError(t, err)
		rep, err = Run(context.Background(), m, Options{Engine: e, Workers: 1})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, rep.Allocs-rep.StartAllocs, rep.Events, e)
		assert.Less(t, rep.StartAllocs, rep.Events, e)
	}
}

func (s *starter) Start(ctx Context) { ctx.SendSelf(note("go"), Nanosecond) }
