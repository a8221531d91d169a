package actors

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sorted run pops events in key order: checked against sorting, on random keys with
// many ties (and runs longer than a pendingQueue lets it hold).
func TestSortedRunOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var h sortedRun
		var want []eventKey
		n := 1 + r.IntN(500)
		for i := range n {
			k := makeKey(Time(r.IntN(20)), ActorID(r.IntN(4)), ActorID(r.IntN(4)), uint64(i))
			want = append(want, k)
			h.push(k, 0, nil)
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

// A pendingQueue keeps a small set as a sorted run and a larger one in a calendar
// queue, and changes between them as the set swings across sortedMax and sortedMin:
// it pops in exact key order all along, whatever the run's head and array do (pushes
// before the head, after the tail, among ties, into a run that has moved up its
// array), and the prefetch hint names the next two events while the set is a run.
func TestPendingQueueRunAndCalendarAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var q pendingQueue
	var want []event
	now, seq := Time(0), uint64(0)
	seen := map[string]int{}
	push := func() {
		var at Time
		switch r.IntN(4) {
		case 0: // a long timer, at the tail
			at = now + 1000 + Time(r.IntN(1000))
		case 1: // at the time being, before nearly everything
			at = now
		default: // soon, among ties
			at = now + Time(r.IntN(8))
		}
		e := event{eventKey: makeKey(at, ActorID(r.IntN(3)), ActorID(r.IntN(3)), seq), msg: tok{v: seq}}
		seq++
		q.push(e.eventKey, e.port, e.msg)
		want = append(want, e)
		slices.SortFunc(want, func(a, b event) int { return compareKeys(a.eventKey, b.eventKey) })
	}
	pop := func() {
		d, m, d2, m2, hinted := q.peek()
		var hint, hint2 Msg // read before the pop frees the slots
		if hinted {
			hint, hint2 = *m, *m2
		}
		run := q.cal == nil
		var e event
		require.True(t, q.popBefore(MaxTime, &e))
		require.Equal(t, want[0], e)
		if hinted {
			require.Equal(t, e.dst(), d)
			require.Equal(t, e.msg, hint)
			if run && len(want) > 1 {
				require.Equal(t, want[1].dst(), d2, "the second hint")
				require.Equal(t, want[1].msg, hint2, "the second hint")
			}
		}
		want, now = want[1:], e.at
	}
	for swing := range 300 {
		high := 1 + r.IntN(3*sortedMax)
		for len(want) < high {
			push()
			if r.IntN(3) == 0 { // a hold's pop between pushes moves the run up its array
				pop()
			}
			if q.cal == nil {
				require.LessOrEqual(t, q.run.len(), sortedMax, "swing %d: a run holds at most sortedMax", swing)
			}
		}
		switch {
		case q.cal != nil:
			seen["calendar"]++
		case q.run.lo > 0:
			seen["run moved up"]++
		default:
			seen["run"]++
		}
		for low := r.IntN(high + 1); len(want) > low; {
			pop()
		}
		require.Equal(t, len(want), q.len(), "swing %d", swing)
		if len(want) < sortedMin {
			require.Nil(t, q.cal, "swing %d: a set below sortedMin is a sorted run", swing)
		}
	}
	for len(want) > 0 {
		pop()
	}
	assert.Positive(t, seen["calendar"], "sets grew into the calendar")
	assert.Positive(t, seen["run"]+seen["run moved up"], "sets stayed sorted runs")
	assert.Positive(t, seen["run moved up"], "runs moved up their arrays")
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

// The digest notices a change in any field of a delivery (time, destination, source,
// sequence, port, message fingerprint) and in the order of two deliveries.
func TestDigestEventIsSensitiveToEveryField(t *testing.T) {
	digestEvent := func(h uint64, e *event) uint64 {
		var plain uintptr
		return digestEvent(h, e, &plain)
	}
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

// A runner remembers the last message type that has no fingerprint and skips the
// assertion for it: a chain of deliveries of mixed types (with and without a
// fingerprint, nil) folds to the digest of a fresh memory at every delivery, and a
// fingerprinted message after plain ones still has its fingerprint folded.
func TestDigestEventRemembersPlainTypes(t *testing.T) {
	msgs := []Msg{plainMsg{}, tok{v: 1}, plainMsg{}, plainMsg{}, note("n"), tok{v: 2}, nil, tok{v: 3}, nil, note("m")}
	var plain uintptr
	remembered, fresh := uint64(0), uint64(0)
	for i, m := range msgs {
		e := event{eventKey: makeKey(Time(i), 1, 2, uint64(i)), msg: m}
		remembered = digestEvent(remembered, &e, &plain)
		var none uintptr
		fresh = digestEvent(fresh, &e, &none)
		require.Equal(t, fresh, remembered, "delivery %d (%v)", i, m)
	}
	require.Equal(t, ifaceWords(&msgs[9])[0], plain, "the last plain type (note) is remembered")
	// The fingerprint counts after plain deliveries: tok{4} and tok{5} differ.
	e4 := event{eventKey: makeKey(1, 1, 2, 0), msg: tok{v: 4}}
	e5 := e4
	e5.msg = tok{v: 5}
	require.NotEqual(t, digestEvent(0, &e4, &plain), digestEvent(0, &e5, &plain))
}

// The calendar queue pops events in exact key order too, with pushes before the
// cursor's day (events from another partition), far-off timers, ties and resizes.
// A burst of simultaneous events fills one bucket, which grows; once the bucket has
// emptied, its large array goes back to the calendar and the next burst, in another
// bucket, takes it: bursts after the first allocate nothing, wherever they land.
func TestCalendarBurstsShareArrays(t *testing.T) {
	q := newCalQueue()
	at := Time(0)
	var e event
	burst := func() {
		at += Time(7) << q.shift // another bucket each time
		for i := range 200 {
			q.push(makeKey(at, 1, 1, uint64(i)), 0, nil)
		}
		for range 200 {
			q.pop(&e)
		}
	}
	burst()
	require.Zero(t, testing.AllocsPerRun(50, burst))
	require.Equal(t, calMinBuckets, len(q.b), "the bursts stayed below a resize")
}

func TestCalendarQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		q := newCalQueue()
		var h sortedRun
		now := Time(0)
		seq := uint64(0)
		// Phases of growth, each followed by draining part of the set, so that the
		// queue grows, shrinks and grows again within its bucket array.
		for phase := range 3 {
			n := 1 + r.IntN(3000)
			spread := Time(1) << r.IntN(30)
			for range n {
				at := now + Time(r.Int64N(int64(spread)))
				switch r.IntN(10) {
				case 0:
					at = now + Time(r.Int64N(1<<50)) // a far-off timer
				case 1:
					at = now // a tie with the present
				}
				k := makeKey(at, ActorID(r.IntN(4)), ActorID(r.IntN(4)), seq)
				q.push(k, 0, tok{v: seq})
				h.push(k, 0, tok{v: seq})
				seq++
				if r.IntN(2) == 0 {
					require.Equal(t, h.minTime(), q.minTime(), "round %d", round)
					var a, b event
					h.pop(&a)
					// popBefore takes nothing at or before the earliest's time,
					// and takes the earliest after it.
					require.False(t, q.popBefore(a.at, &b), "round %d", round)
					require.True(t, q.popBefore(a.at+1, &b), "round %d", round)
					require.Equal(t, a, b, "round %d", round)
					now = a.at
				}
				if seq%2003 == 0 {
					checkCalendar(t, q)
				}
			}
			keep := 0
			if phase < 2 {
				keep = r.IntN(h.len() + 1)
			}
			for h.len() > keep {
				require.Equal(t, h.minTime(), q.minTime())
				var a, b event
				h.pop(&a)
				q.pop(&b)
				require.Equal(t, a, b, "round %d phase %d", round, phase)
				now = a.at
			}
		}
		require.Equal(t, 0, q.len())
		require.Equal(t, MaxTime, q.minTime())
		checkCalendar(t, q)
	}
}

// A burst of events of one time, addressed in no order of their keys, fills one bucket
// (a calendar cannot split a time): each goes to its place among the others (the later
// ones moved up one at a time while the bucket holds calShiftMax events or fewer, the
// place found by bisection beyond), and they come out in key order.
func TestCalendarBurstOfOneTime(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	q := newCalQueue()
	var h sortedRun
	for seq := range uint64(2000) {
		at := Time(1000)
		if seq%7 == 0 {
			at += Time(r.IntN(3)) // a few at the times beside it, in the same bucket
		}
		k := makeKey(at, ActorID(r.IntN(500)), ActorID(r.IntN(3)), seq)
		q.push(k, 0, tok{v: seq})
		h.push(k, 0, tok{v: seq})
	}
	checkCalendar(t, q)
	for h.len() > 0 {
		var a, b event
		h.pop(&a)
		q.pop(&b)
		require.Equal(t, a, b)
	}
}

// checkCalendar checks the calendar's invariants: a bucket's occupancy bit is set
// exactly when it holds events (seek skips the others), every bucket's events are in
// key order and in that bucket's days, none is before the cursor's day, and the count.
func checkCalendar(t *testing.T, q *calQueue) {
	t.Helper()
	require.Len(t, q.occ, len(q.b)/64)
	n := 0
	for i := range q.b {
		b := &q.b[i]
		live := b.e[b.h:]
		n += len(live)
		require.Equal(t, len(live) > 0, q.occ[i/64]>>(i%64)&1 == 1, "bucket %d: occupancy bit", i)
		for k, x := range live {
			require.Equal(t, i, int(uint64(x.at)>>q.shift)&q.mask, "bucket %d holds an event of another", i)
			require.GreaterOrEqual(t, x.at, q.start, "an event before the cursor's day")
			if k > 0 {
				require.True(t, live[k-1].less(x.eventKey), "bucket %d out of order", i)
			}
		}
	}
	require.Equal(t, q.n, n)
	require.Equal(t, q.top, dayEnd(uint64(q.start)>>q.shift, q.shift), "the cursor's day")
	require.Equal(t, q.cur, int(uint64(q.start)>>q.shift)&q.mask, "the cursor's bucket")
}

// A partition's pending queue switches between a sorted run and the calendar as its
// set swings across their sizes; the calendar, emptied into a run without shrinking and
// reused with its old buckets and width, must still pop in exact key order.
func TestPendingQueueOrderAcrossSwitches(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var q pendingQueue
	var h sortedRun
	now, seq := Time(0), uint64(0)
	peeks := map[bool]int{} // hints given, by calendar mode
	for swing := range 12 {
		high := sortedMax + 1 + r.IntN(4000)
		spread := Time(1) << (10 + r.IntN(20)) // another width each time
		for h.len() < high {
			k := makeKey(now+Time(r.Int64N(int64(spread))), ActorID(r.IntN(4)), ActorID(r.IntN(4)), seq)
			q.push(k, 0, tok{v: seq})
			h.push(k, 0, tok{v: seq})
			seq++
		}
		require.NotNil(t, q.cal, "swing %d: the calendar takes a large set", swing)
		for h.len() > r.IntN(sortedMin) {
			var a, b event
			h.pop(&a)
			// The prefetch hint, when given, names the event popped next.
			d, m, _, _, hinted := q.peek()
			var hint Msg
			if hinted {
				hint = *m
				peeks[q.cal != nil]++
			}
			require.True(t, q.popBefore(MaxTime, &b))
			require.Equal(t, a, b, "swing %d", swing)
			if hinted {
				require.Equal(t, a.dst(), d, "swing %d", swing)
				require.Equal(t, a.msg, hint, "swing %d", swing)
			}
			now = a.at
		}
		require.Nil(t, q.cal, "swing %d: a sorted run takes a small set", swing)
	}
	assert.Positive(t, peeks[true], "the calendar gives hints")
	assert.Positive(t, peeks[false], "the sorted run gives hints")
}

// BenchmarkCalendarHold is the classic hold model (each pop followed by a push at the
// popped time plus an exponential increment) on the calendar queue, at several
// pending-set sizes.
func BenchmarkCalendarHold(b *testing.B) {
	for _, n := range []int{64, 1024, 1 << 16, 1 << 20} {
		b.Run(strconv.Itoa(n), func(b *testing.B) { hold(b, newCalQueue(), n) })
	}
}

// BenchmarkSmallSetHold runs the sets a pendingQueue keeps as a sorted run (sorted/N)
// against the same sets in the calendar queue (calendar/N), in one run, on two
// patterns: the hold model (hold/: a popped event comes back an exponential time
// later, mostly behind those pending) and a NIC's (nic/: it comes back soon, 1-8 ns,
// ahead of the long timers, 1 us, that one event in eight sets).
func BenchmarkSmallSetHold(b *testing.B) {
	for _, n := range []int{24, sortedMin, sortedMax} {
		for _, mode := range []struct {
			name string
			set  func() pendingSet
		}{{"sorted", func() pendingSet { return &sortedRun{} }}, {"calendar", func() pendingSet { return newCalQueue() }}} {
			b.Run("hold/"+mode.name+"/"+strconv.Itoa(n), func(b *testing.B) { hold(b, mode.set(), n) })
			b.Run("nic/"+mode.name+"/"+strconv.Itoa(n), func(b *testing.B) { holdNIC(b, mode.set(), n) })
		}
	}
}

// holdNIC is hold with a NIC's delays: 1-8 ns, or 1 us for one event in eight.
func holdNIC(b *testing.B, q pendingSet, n int) {
	delay := func(r *Rand) Time {
		if r.IntN(8) == 0 {
			return Time(Microsecond)
		}
		return Time(Nanosecond) * Time(1+r.IntN(8))
	}
	holdWith(b, q, n, delay, delay)
}

// BenchmarkCalendarBurst times a calendar's bursts of events of one time, addressed
// in random order of their destinations, as halo3d's symmetric nodes make them (a
// bucket cannot split a time): each burst pushed, then popped, per event. A hold
// model's times are all distinct, so BenchmarkCalendarHold never inserts before a
// bucket's latest; this one mostly does.
func BenchmarkCalendarBurst(b *testing.B) {
	for _, n := range []int{16, 128, 1024} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			q := newCalQueue()
			r := NewRand(1, "bench")
			var e event
			at, seq := Time(0), uint64(0)
			b.ResetTimer()
			for i := 0; i < b.N; i += n {
				at += Time(Nanosecond)
				for range n {
					q.push(makeKey(at, ActorID(r.IntN(1<<16)), ActorID(r.IntN(8)), seq), 0, nil)
					seq++
				}
				for range n {
					q.pop(&e)
				}
			}
		})
	}
}

type pendingSet interface {
	push(k eventKey, port Port, m Msg)
	pop(*event)
}

func hold(b *testing.B, q pendingSet, n int) {
	holdWith(b, q, n,
		func(r *Rand) Time { return Time(r.Exp(Nanosecond)) },
		func(r *Rand) Time { return Time(Nanosecond + r.Exp(Nanosecond)) })
}

// holdWith fills q with n events at first's times, then pops one and pushes it back
// next's time later, b.N times.
func holdWith(b *testing.B, q pendingSet, n int, first, next func(*Rand) Time) {
	r := NewRand(1, "bench")
	for i := range n {
		q.push(makeKey(first(&r), ActorID(i), ActorID(i), 0), 0, nil)
	}
	var e event
	b.ResetTimer()
	for i := range b.N {
		q.pop(&e)
		e.at += next(&r)
		e.seq = uint64(i)
		q.push(e.eventKey, e.port, e.msg)
	}
}
