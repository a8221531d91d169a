package actors

import "testing"

// Colocated actors end up in one partition under any partitioner, and the run's
// digest does not change.
func TestColocateMergesPartitions(t *testing.T) {
	build := func(colocate bool) *Model {
		t.Helper()
		g := NewGraph()
		a := g.Add("n.a", &nop{ports: []string{"p"}})
		b := g.Add("n.b", &nop{ports: []string{"p", "q"}})
		c := g.Add("m.c", &nop{ports: []string{"q"}})
		g.Connect(a.Port("p"), b.Port("p"), Nanosecond)
		g.Connect(b.Port("q"), c.Port("q"), Nanosecond)
		if colocate {
			g.Colocate("n.a", "n.b")
		}
		m, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := build(true)
	of, _ := Block{}.Partition(m, 2)
	got := colocated(m, of)
	ida, _ := m.ID("n.a")
	idb, _ := m.ID("n.b")
	idc, _ := m.ID("m.c")
	if got[ida] != got[idb] || got[ida] == got[idc] {
		t.Fatalf("partitions %v: want n.a with n.b and m.c apart", got)
	}
	g := NewGraph()
	g.Add("x", &nop{})
	g.Colocate("x", "nosuch")
	if _, err := g.Build(); err == nil {
		t.Fatal("Colocate of an unknown actor: want an error")
	}
}
