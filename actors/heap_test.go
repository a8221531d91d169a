package actors

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The 4-ary heap pops events in key order: checked against sorting, on random keys
// with many ties.
func TestEventHeapOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var h eventHeap
		var want []eventKey
		n := 1 + r.IntN(500)
		for i := range n {
			k := makeKey(Time(r.IntN(20)), ActorID(r.IntN(4)), ActorID(r.IntN(4)), uint64(i))
			want = append(want, k)
			h.push(event{eventKey: k})
			if r.IntN(3) == 0 { // interleave pops, as a simulation does
				var e event
				h.pop(&e)
				slices.SortFunc(want, func(a, b eventKey) int { return compareKeys(a, b) })
				require.Equal(t, want[0], e.eventKey, "round %d", round)
				want = want[1:]
			}
		}
		slices.SortFunc(want, func(a, b eventKey) int { return compareKeys(a, b) })
		for _, k := range want {
			var e event
			h.pop(&e)
			require.Equal(t, k, e.eventKey)
		}
		require.Equal(t, 0, h.len())
	}
}

func compareKeys(a, b eventKey) int {
	switch {
	case a.less(b):
		return -1
	case b.less(a):
		return 1
	}
	return 0
}

// BenchmarkEventHeapHold is the classic hold model: 1024 pending events, each pop
// followed by a push at the popped time plus an exponential increment.
func BenchmarkEventHeapHold(b *testing.B) {
	var h eventHeap
	r := NewRand(1, "bench")
	for i := range 1024 {
		h.push(event{eventKey: makeKey(Time(r.Exp(Nanosecond)), ActorID(i), ActorID(i), 0)})
	}
	var e event
	b.ResetTimer()
	for i := range b.N {
		h.pop(&e)
		e.at += Time(Nanosecond + r.Exp(Nanosecond))
		e.seq = uint64(i)
		h.push(e)
	}
}

// The digest notices a change in any field of a delivery (time, destination, source,
// sequence, port, message fingerprint) and in the order of two deliveries.
func TestDigestEventIsSensitiveToEveryField(t *testing.T) {
	base := event{eventKey: makeKey(1000, 3, 7, 42), port: 2, msg: tok{v: 99}}
	h0 := digestEvent(0x1234, &base)
	for name, mut := range map[string]func(*event){
		"time":         func(e *event) { e.at++ },
		"destination":  func(e *event) { e.eventKey = makeKey(e.at, 4, 7, 42) },
		"source":       func(e *event) { e.eventKey = makeKey(e.at, 3, 8, 42) },
		"sequence":     func(e *event) { e.seq++ },
		"port":         func(e *event) { e.port++ },
		"message":      func(e *event) { e.msg = tok{v: 100} },
		"swap dst/src": func(e *event) { e.eventKey = makeKey(e.at, 7, 3, 42) },
	} {
		e := base
		mut(&e)
		assert.NotEqual(t, h0, digestEvent(0x1234, &e), name)
	}
	other := event{eventKey: makeKey(1000, 3, 7, 43), port: 2, msg: tok{v: 99}}
	assert.NotEqual(t, digestEvent(digestEvent(0, &base), &other), digestEvent(digestEvent(0, &other), &base), "order")
}
