package actors

import (
	"math/bits"
	"slices"
	"unsafe"
)

// calQueue is a calendar queue (Brown 1988) of events: buckets of one "day" of width
// 2^shift picoseconds each, nb of them a "year"; an event at time t goes to bucket
// (t >> shift) mod nb, kept sorted by key (a new event, usually the latest, is appended;
// the earliest is taken from the bucket's head). The cursor
// (cur, its day ending at top) never passes an event: every event is at or after the
// start of the cursor's day, so the earliest event of the cursor's bucket that falls in
// the cursor's day is the earliest of all. Pop and push cost O(1) when the width fits
// the spacing of the pending events; it is re-estimated from them whenever the queue
// doubles or shrinks to a quarter of its bucket count. The order is the exact key order,
// as sortedRun's, whatever the width: only the speed depends on it.
type calQueue struct {
	b     []calBucket // buckets, each sorted by key
	occ   []uint64    // bit i set: bucket i holds events (seek skips the empty ones)
	msgs  msgSlots
	n     int  // events held
	shift uint // a day is 1<<shift ps
	mask  int  // nb-1
	cur   int  // the cursor's bucket
	top   Time // end of the cursor's day (exclusive)
	start Time // start of the cursor's day

	// spare holds the large bucket arrays buckets gave back, by class (class c holds
	// arrays of calBucketFirst<<c events): a burst takes them from here instead of
	// allocating, so the large arrays a calendar has are about as many as its busiest
	// moment used at once, not one per bucket that ever had a burst.
	spare [calClasses][][]pendingEntry
}

// calClasses is the number of array classes spare keeps; calKeep is the class of
// the largest array a bucket keeps when it empties (larger ones go back to spare).
const (
	calClasses = 20
	calKeep    = 2
)

// calScratch is the scratch space of a resize: the events to re-spread and their times,
// to re-estimate the width from. Resizes are rare but recur (a partition's pending set
// swings across a size every few windows), and a scratch kept by every calendar would
// cost a machine of a thousand partitions the space of its pending events again: the
// arrays come from a stash the partitions share (kept per CPU, like a sync.Pool's, but
// not emptied by the garbage collector).
type calScratch struct {
	all   []pendingEntry
	times []Time
}

var calScratches stash[calScratch]

// calBucket is a bucket's events, sorted by key from e[h] on (those before h are
// taken).
type calBucket struct {
	e []pendingEntry
	h int
}

// first returns the bucket's earliest event.
func (b *calBucket) first() (pendingEntry, bool) {
	if b.h == len(b.e) {
		return pendingEntry{}, false
	}
	return b.e[b.h], true
}

// calBucketFirst is the capacity of a bucket's first array: the mean bucket size the
// width estimate aims at (width).
const calBucketFirst = 4

// calMinBuckets is the smallest bucket count of a calendar queue.
const calMinBuckets = 64

func newCalQueue() *calQueue {
	q := &calQueue{}
	q.layout(calMinBuckets, 10, 0)
	return q
}

func (q *calQueue) len() int { return q.n }

// layout makes nb empty buckets of width 2^shift with the cursor on the day of t.
func (q *calQueue) layout(nb int, shift uint, t Time) {
	if cap(q.b) >= nb {
		// The buckets a shrink drops keep their arrays past the end, for the growth
		// that brings them back: a partition's pending set swings across a size, and
		// each swing made the same buckets grow again through four or five arrays.
		q.b = q.b[:nb]
	} else {
		q.b = append(q.b[:cap(q.b)], make([]calBucket, nb-cap(q.b))...)
	}
	for i := range q.b {
		// A bucket keeps its array up to class calKeep; a larger one goes back to
		// spare, where a bucket that grows takes it.
		q.b[i] = calBucket{e: q.keep(q.b[i].e)}
	}
	if words := nb / 64; cap(q.occ) >= words {
		q.occ = q.occ[:words]
		clear(q.occ)
	} else {
		q.occ = make([]uint64, words)
	}
	q.shift, q.mask = shift, nb-1
	q.setCursor(t)
}

// setCursor puts the cursor on the day of time t.
func (q *calQueue) setCursor(t Time) {
	day := uint64(t) >> q.shift
	q.cur = int(day) & q.mask
	q.top = dayEnd(day, q.shift)
	q.start = Time(day << q.shift)
}

// dayEnd is the end of day number day, clamped to MaxTime.
func dayEnd(day uint64, shift uint) Time {
	if day+1 > uint64(MaxTime)>>shift {
		return MaxTime
	}
	return Time((day + 1) << shift)
}

func (q *calQueue) push(k eventKey, port Port, m Msg) {
	q.insert(pendingEntry{eventKey: k, slot: q.msgs.park(m), port: port})
	q.n++
	if q.n > 4*len(q.b) {
		q.resize(2 * len(q.b))
	}
}

// insert places x in its bucket, moving the cursor back if x is before its day (an
// event from another partition may land before the earliest local one).
func (q *calQueue) insert(x pendingEntry) {
	if x.at < q.start {
		q.setCursor(x.at)
	}
	i := int(uint64(x.at)>>q.shift) & q.mask
	q.occ[i>>6] |= 1 << (i & 63)
	b := &q.b[i]
	if len(b.e) == cap(b.e) {
		if b.h > 0 && b.h >= len(b.e)/2 { // reclaim the taken half
			b.e = b.e[:copy(b.e, b.e[b.h:])]
			b.h = 0
		} else {
			q.grow(b)
		}
	}
	// Room for x (len < cap now): a reslice writes the length only, where an append
	// would store the array's pointer back too, through the write barrier's check.
	j := len(b.e)
	b.e = b.e[:j+1]
	e := b.e
	if j == b.h || !x.less(e[j-1].eventKey) { // the usual case: x is the latest
		e[j] = x
		return
	}
	if j-b.h <= calShiftMax { // x goes before the latest
		// Few events, as in a bucket of about the mean size: the later ones move up
		// one at a time from the latest, as an insertion sort's step does.
		s := e[b.h:]
		k := len(s) - 1
		for k > 0 && x.less(s[k-1].eventKey) {
			s[k] = s[k-1]
			k--
		}
		s[k] = x
		return
	}
	// Many (the events of one time come in no order of their keys, and a burst of
	// them fills a bucket: halo3d 12x12x12 shifted 46 events an insert out of order):
	// x goes after every event before it, found by bisection, and the later ones move
	// up at once.
	lo, hi := b.h, j-1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.less(e[m].eventKey) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	copy(e[lo+1:], e[lo:j])
	e[lo] = x
}

// calShiftMax is the most events insert moves up one at a time (twice the mean
// bucket size the width aims at, calBucketFirst); beyond, it bisects and copies. On
// PHOLD, whose events land at random times in their buckets, most inserts are out of
// order by one or two events, which a bisection, a copy call and a store made cost
// about a hundred instructions.
const calShiftMax = 2 * calBucketFirst

// grow gives full bucket b an array of the next class up, from spare if it has one,
// with b's events; b's array goes back to spare if it is large. A bucket's first
// array holds calBucketFirst events at once, the mean bucket size width aims at.
func (q *calQueue) grow(b *calBucket) {
	live := b.e[b.h:]
	c := calClass(len(live))
	var e []pendingEntry
	if c < calClasses {
		if n := len(q.spare[c]); n > 0 {
			e = q.spare[c][n-1]
			q.spare[c] = q.spare[c][:n-1]
		} else {
			e = make([]pendingEntry, 0, calBucketFirst<<c)
		}
	}
	e = append(e, live...) // beyond the classes, append sizes it
	old := b.e
	b.e, b.h = e, 0
	q.giveBack(old)
}

// keep returns e emptied if a bucket keeps it (class calKeep or below), or nil after
// giving it back to spare.
func (q *calQueue) keep(e []pendingEntry) []pendingEntry {
	if cap(e) <= calBucketFirst<<calKeep {
		return e[:0]
	}
	q.giveBack(e)
	return nil
}

// giveBack puts array e in spare if it is of a class (an array grow made).
func (q *calQueue) giveBack(e []pendingEntry) {
	if c := calClass(cap(e) - 1); c < calClasses && cap(e) == calBucketFirst<<c {
		q.spare[c] = append(q.spare[c], e[:0])
	}
}

// calClass is the smallest class whose arrays (calBucketFirst<<class events) hold
// more than n events.
func calClass(n int) int { return bits.Len(uint(max(n, 0) / calBucketFirst)) }

// minTime is the time of the earliest event, MaxTime if empty.
func (q *calQueue) minTime() Time {
	if q.n == 0 {
		return MaxTime
	}
	x, _ := q.seek().first()
	return x.at
}

// seek moves the cursor to the bucket of the earliest event (q.n > 0) and returns the
// bucket: the first bucket from the cursor on whose earliest event falls in that
// bucket's day of the cursor's year, skipping empty buckets by their occupancy bits,
// else (a whole year without a due event) straight to the day of the earliest event.
func (q *calQueue) seek() *calBucket {
	if b := &q.b[q.cur]; b.h < len(b.e) && b.e[b.h].at < q.top {
		return b
	}
	q.search()
	return &q.b[q.cur]
}

// search is seek's search from the cursor on: the occupied buckets after the cursor's,
// in cursor order (their bits, from the word of the next bucket on, wrapping around
// once), each in its day of the cursor's year.
func (q *calQueue) search() {
	if q.top != MaxTime {
		c0, top0 := q.cur, q.top
		room := Time(uint64(MaxTime-top0) >> q.shift) // days after the cursor's before MaxTime
		i := (c0 + 1) & q.mask
		w0 := i >> 6
		lower := uint64(1)<<(i&63) - 1 // the bits of w0 before i: its buckets last in the year
		w, word := w0, q.occ[w0]&^lower
		for n := 0; ; n++ {
			for ; word != 0; word &= word - 1 {
				j := w<<6 | bits.TrailingZeros64(word)
				o := (j - c0) & q.mask
				if o == 0 || Time(o) > room {
					goto year // back at the cursor's bucket, or past the end of time
				}
				if b, top := &q.b[j], top0+Time(o)<<q.shift; b.e[b.h].at < top {
					q.cur, q.top, q.start = j, top, top-Time(1)<<q.shift
					return
				}
			}
			if n == len(q.occ) {
				break // w0's bits before i were the last
			}
			w = (w + 1) & (len(q.occ) - 1)
			if word = q.occ[w]; n+1 == len(q.occ) {
				word &= lower // back at w0
			}
		}
	}
year: // a whole year without a due event: straight to the earliest
	first := MaxTime
	for w, word := range q.occ {
		for ; word != 0; word &= word - 1 {
			b := &q.b[w<<6|bits.TrailingZeros64(word)]
			first = min(first, b.e[b.h].at)
		}
	}
	q.setCursor(first)
}

// pop removes the earliest event into *e (q.n > 0).
func (q *calQueue) pop(e *event) {
	q.take(e)
	q.shrink()
}

// popBefore removes the earliest event into *e if it is before limit, and reports
// whether it did (one search for both).
func (q *calQueue) popBefore(limit Time, e *event) bool {
	if q.n == 0 {
		return false
	}
	b := q.seek()
	x := &b.e[b.h]
	if x.at >= limit {
		return false
	}
	// remove's work, written out here: as a call on every pop's path its inlining
	// (cost 150, over the compiler's budget of 80) depended on the profile-guided
	// build and flipped with unrelated changes to the package (PHOLD 120 M
	// instructions in 1,850 M apart).
	e.eventKey, e.port, e.msg = x.eventKey, x.port, q.msgs.take(x.slot)
	q.n--
	if b.h++; b.h == len(b.e) {
		q.release(b)
		// The count is checked against the buckets' as one empties (every few pops
		// in a hold model) rather than at every pop: a shrink waits for the next
		// bucket that empties.
		q.shrink()
	}
	return true
}

// shrink halves the bucket count when the events are fewer than half of it.
func (q *calQueue) shrink() {
	if q.n < len(q.b)/2 && len(q.b) > calMinBuckets {
		q.resize(len(q.b) / 2)
	}
}

// take removes the earliest event into *e (q.n > 0) and keeps the bucket count.
func (q *calQueue) take(e *event) {
	q.remove(q.seek(), e)
}

// remove removes the earliest event of b, the cursor's bucket (seek's: its earliest
// is the earliest of all), into *e (popBefore writes the same out).
func (q *calQueue) remove(b *calBucket, e *event) {
	x := &b.e[b.h]
	e.eventKey, e.port, e.msg = x.eventKey, x.port, q.msgs.take(x.slot)
	q.n--
	if b.h++; b.h == len(b.e) {
		q.release(b)
	}
}

// release empties b, the cursor's bucket, whose last event was taken.
func (q *calQueue) release(b *calBucket) {
	b.e, b.h = q.keep(b.e), 0
	q.occ[q.cur>>6] &^= 1 << (q.cur & 63)
}

// resize re-spreads the events over nb buckets, the width re-estimated from them.
func (q *calQueue) resize(nb int) {
	s := calScratches.get()
	if s == nil {
		s = new(calScratch)
	}
	all, times := s.all[:0], s.times[:0]
	for i := range q.b {
		for _, x := range q.b[i].e[q.b[i].h:] {
			all = append(all, x)
			times = append(times, x.at)
		}
	}
	first := MaxTime
	if len(times) > 0 {
		first = slices.Min(times)
	}
	q.layout(nb, width(times, q.shift), first)
	for _, x := range all {
		q.insert(x)
	}
	s.all, s.times = all, times
	calScratches.put(s)
}

// width estimates the day width from the times t of the events (sorting them): about
// three times the mean spacing of the earlier half (the later ones are often far-off
// timers), as a shift; the current one, shift, if there are fewer than two.
func width(t []Time, shift uint) uint {
	if len(t) < 2 {
		return shift
	}
	slices.Sort(t)
	half := t[:len(t)/2+1]
	gap := uint64(half[len(half)-1]-half[0]) / uint64(len(half)-1)
	w := max(3*gap, 1)
	return uint(bits.Len64(w - 1)) // the next power of two
}

// pendingQueue is a partition's pending events: a sorted run while they are few, a
// calendar queue while they are many. Both pop in exact key order, so the choice
// changes no result. A run's insert scans and moves entries, so it holds sets up to
// sortedMax: a NIC model's new events go near the head, where the run beats the
// calendar's bucket appends by about 2x up to 128 events (BenchmarkSmallSetHold nic/),
// but a hold model's land anywhere, where the run is as fast as the calendar at 64
// events and half as fast at 128 (hold/); in alltoall 4x4x2 (cachegrind) a limit of 128
// would save the queue 3% of its instructions over 64. A 4-ary heap held sets of 64 to
// 512 events before: its pops' comparisons mispredicted (alltoall 4x4x2: the queue's
// mispredicted branches -71% without it, BENCHMARKS.md, twenty-ninth session).
type pendingQueue struct {
	run   sortedRun
	cal   *calQueue // the events, while in calendar mode
	spare *calQueue // the calendar queue of an earlier calendar mode, for reuse
}

// The pending-set sizes at which a partition's queue changes structure (apart, so that
// a set near one size does not switch back and forth).
const (
	sortedMax = 64 // a sorted run holds at most this many; the calendar takes more
	sortedMin = 40 // a calendar holding fewer goes back to a sorted run
)

func (q *pendingQueue) len() int {
	if q.cal != nil {
		return q.cal.len()
	}
	return q.run.len()
}

func (q *pendingQueue) minTime() Time {
	if q.cal != nil {
		return q.cal.minTime()
	}
	return q.run.minTime()
}

func (q *pendingQueue) push(k eventKey, port Port, m Msg) {
	if q.cal == nil {
		if q.run.len() < sortedMax {
			q.run.push(k, port, m)
			return
		}
		q.toCalendar()
	}
	q.cal.push(k, port, m)
}

// toCalendar moves the sorted run's events to a calendar queue, the one of the last
// calendar mode if there was one (toRun).
func (q *pendingQueue) toCalendar() {
	q.cal, q.spare = q.spare, nil
	if q.cal == nil {
		q.cal = newCalQueue()
	}
	var x event
	for q.run.len() > 0 {
		q.run.pop(&x)
		q.cal.push(x.eventKey, x.port, x.msg)
	}
}

func (q *pendingQueue) pop(e *event) {
	if q.cal == nil {
		q.run.pop(e)
		return
	}
	q.cal.pop(e)
	q.leaveCalendar()
}

// leaveCalendar goes back to a sorted run once the calendar holds few events. (The
// test, after every pop of a calendar, is inlined; the move is not.)
func (q *pendingQueue) leaveCalendar() {
	if q.cal.len() < sortedMin {
		q.toRun()
	}
}

// toRun moves the calendar's events to the sorted run. The calendar is emptied without
// shrinking: it keeps its buckets and their arrays for the next time the set grows
// (halving it down to its smallest size re-spread the events at each step and dropped
// the arrays it grows again).
func (q *pendingQueue) toRun() {
	var x event
	for q.cal.len() > 0 {
		q.cal.take(&x)
		q.run.push(x.eventKey, x.port, x.msg)
	}
	q.cal, q.spare = nil, q.cal
}

// popBefore removes the earliest event into *e if it is before limit, and reports
// whether it did (one search for the earliest instead of minTime's and pop's).
func (q *pendingQueue) popBefore(limit Time, e *event) bool {
	if q.cal == nil {
		if q.run.minTime() >= limit {
			return false
		}
		q.run.pop(e)
		return true
	}
	if !q.cal.popBefore(limit, e) {
		return false
	}
	q.leaveCalendar()
	return true
}

// peek returns the destinations of the next two events and the addresses of their
// messages' slots, without searching: the head of the cursor's bucket and the event
// after it if they are due within the cursor's day (the second is the first again if
// the bucket holds one). A hint for prefetching only.
func (q *calQueue) peek() (ActorID, *Msg, ActorID, *Msg, bool) {
	b := &q.b[q.cur]
	if b.h >= len(b.e) || b.e[b.h].at >= q.top {
		return 0, nil, 0, nil, false
	}
	x, y := &b.e[b.h], &b.e[b.h]
	if b.h+1 < len(b.e) {
		y = &b.e[b.h+1]
	}
	if b.h+2 >= len(b.e) {
		q.prefetchSuccessor()
	}
	return x.dst(), &q.msgs.msgs[x.slot], y.dst(), &q.msgs.msgs[y.slot], true
}

// prefetchSuccessor starts bringing in the head of the bucket after the cursor's, if
// it holds events: called when the cursor's bucket holds no more than the two events
// peek returns, whose successor is then most likely that bucket's head. On a large
// machine the cursor moves to another bucket every few events, whose array the next
// seek and peek read cold: in Red Storm's CPU profile the calendar's pop side (seek,
// remove, peek) went from 5.0 to 4.3 s of about 50 (BENCHMARKS.md, thirty-first
// session). A hint only, like peek.
func (q *calQueue) prefetchSuccessor() {
	if n := &q.b[(q.cur+1)&q.mask]; n.h < len(n.e) {
		prefetchLine(uintptr(unsafe.Pointer(&n.e[n.h])))
	}
}

// peek returns the destinations of the next two events and the addresses of their
// messages' slots, if they are known without searching: a hint for prefetching only.
func (q *pendingQueue) peek() (ActorID, *Msg, ActorID, *Msg, bool) {
	if q.cal != nil {
		return q.cal.peek()
	}
	return q.run.peek()
}
