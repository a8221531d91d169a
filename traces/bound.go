package traces

import (
	"cmp"
	"container/heap"
	"slices"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// bounded keeps the first max records of a stream under a total order, whatever the
// order they arrive in. Partitions hand their spans over in an order that depends on
// the worker count and scheduling; keeping "the first max to arrive" would make a
// truncated file or timeline differ between runs, keeping the max least ones does not.
// It is a max-heap: a record beyond the bound replaces the greatest one kept if it
// is less, else it is dropped.
type bounded struct {
	max     int
	less    func(a, b *record) int
	recs    []record
	dropped int64
	// cut is the least record left out (valid when dropped > 0): everything kept is
	// before it in the order.
	cut record
}

func newBounded(max int, order func(a, b *record) int) *bounded {
	return &bounded{max: max, less: order}
}

func (b *bounded) Len() int           { return len(b.recs) }
func (b *bounded) Less(i, j int) bool { return b.less(&b.recs[i], &b.recs[j]) > 0 }
func (b *bounded) Swap(i, j int)      { b.recs[i], b.recs[j] = b.recs[j], b.recs[i] }
func (b *bounded) Push(x any)         { b.recs = append(b.recs, x.(record)) }
func (b *bounded) Pop() any {
	r := b.recs[len(b.recs)-1]
	b.recs = b.recs[:len(b.recs)-1]
	return r
}

// add offers r.
func (b *bounded) add(r *record) {
	if len(b.recs) < b.max {
		b.recs = append(b.recs, *r) // heap.Push would box the record: an allocation per span
		heap.Fix(b, len(b.recs)-1)
		return
	}
	out := r
	if b.max > 0 && b.less(r, &b.recs[0]) < 0 {
		top := b.recs[0]
		b.recs[0] = *r
		heap.Fix(b, 0)
		out = &top
	}
	if b.dropped == 0 || b.less(out, &b.cut) < 0 {
		b.cut = *out
	}
	b.dropped++
}

// sorted returns the records kept, least first (the heap is gone afterwards).
func (b *bounded) sorted() []record {
	recs := b.recs
	b.recs = nil
	slices.SortFunc(recs, func(x, y record) int { return b.less(&x, &y) })
	return recs
}

// fileOrder is the trace file's order: by run, message and then recordCmp, so that a
// bounded file holds whole messages, the lowest ids first.
func fileOrder(a, b *record) int {
	return cmp.Or(cmp.Compare(a.run, b.run), cmp.Compare(a.trace, b.trace), recordCmp(a, b))
}

// timeOrder is the timeline's order for stages: by run, start, then recordCmp.
func timeOrder(a, b *record) int {
	return cmp.Or(cmp.Compare(a.run, b.run), cmp.Compare(a.start, b.start), recordCmp(a, b), cmp.Compare(a.trace, b.trace))
}

// gaugeOrder is the timeline's order for gauge values: by run, time, block, gauge and
// value.
func gaugeOrder(a, b *record) int {
	return cmp.Or(cmp.Compare(a.run, b.run), cmp.Compare(a.start, b.start), strings.Compare(a.actor, b.actor),
		strings.Compare(a.name, b.name), cmp.Compare(gaugeValue(a), gaugeValue(b)))
}

func gaugeValue(r *record) int64 {
	if len(r.attrs) == 0 {
		return 0
	}
	return r.attrs[0].Int
}

// timeOf is the simulated time a bound cut the timeline at, for the report.
func (b *bounded) timeOf() actors.Time { return b.cut.start }
