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
// Below the bound it keeps every record in arrival order (a run that fits pays an
// append per record); at the bound it becomes a max-heap: a record beyond the bound
// replaces the greatest one kept if it is less, else it is dropped. The records live
// in chunks of boundChunk, so that keeping millions never copies them all into a
// larger array (a traced run of 4 M spans spent a fifth of its time in those copies).
type bounded struct {
	max     int
	order   recordOrder
	chunks  [][]record // the records kept, in chunks of boundChunk
	n       int
	dropped int64
	// cut is the least record left out (valid when dropped > 0): everything kept is
	// before it in the order.
	cut record
}

// boundChunk is the number of records in a chunk of a bounded set (about 140 KiB).
const boundChunk = 1024

func newBounded(max int, order recordOrder) *bounded {
	return &bounded{max: max, order: order}
}

// recordOrder is a total order of records (cmp) that compares run first and then the
// two keys that keys returns, as unsigned numbers, before anything else: sorting
// compares those from an array of them and reads the records only for ties.
type recordOrder struct {
	cmp  func(a, b *record) int
	keys func(r *record) (uint64, uint64)
}

// timeKey maps a time to an unsigned number in the same order.
func timeKey(t actors.Time) uint64 { return uint64(t) ^ 1<<63 }

// at is record i.
func (b *bounded) at(i int) *record { return &b.chunks[i/boundChunk][i%boundChunk] }

func (b *bounded) Len() int           { return b.n }
func (b *bounded) Less(i, j int) bool { return b.order.cmp(b.at(i), b.at(j)) > 0 }
func (b *bounded) Swap(i, j int)      { x, y := b.at(i), b.at(j); *x, *y = *y, *x }
func (b *bounded) Push(x any)         { b.append(x.(record)) }
func (b *bounded) Pop() any {
	b.n--
	c := &b.chunks[b.n/boundChunk]
	r := (*c)[len(*c)-1]
	*c = (*c)[:len(*c)-1]
	return r
}

// append keeps r as record n.
func (b *bounded) append(r record) {
	if b.n%boundChunk == 0 && b.n/boundChunk == len(b.chunks) {
		b.chunks = append(b.chunks, make([]record, 0, boundChunk))
	}
	c := &b.chunks[b.n/boundChunk]
	*c = append(*c, r)
	b.n++
}

// add offers r.
func (b *bounded) add(r *record) {
	if b.n < b.max {
		b.append(*r) // heap.Push would box the record: an allocation per span
		if b.n == b.max {
			heap.Init(b) // full: from now on the greatest is at the root
		}
		return
	}
	out := r
	if b.max > 0 && b.order.cmp(r, b.at(0)) < 0 {
		top := *b.at(0)
		*b.at(0) = *r
		heap.Fix(b, 0)
		out = &top
	}
	if b.dropped == 0 || b.order.cmp(out, &b.cut) < 0 {
		b.cut = *out
	}
	b.dropped++
}

// sorted returns the records kept, least first: pointers into the set's chunks. The
// sort runs over an array of the order's leading keys beside the pointers, so that
// most comparisons read neither record (pointers sorted by comparing the records they
// point to missed the cache on most comparisons of a set of millions).
func (b *bounded) sorted() []*record {
	type item struct {
		k1, k2 uint64
		run    int
		r      *record
	}
	items := make([]item, b.n)
	for i := range items {
		r := b.at(i)
		k1, k2 := b.order.keys(r)
		items[i] = item{k1, k2, r.run, r}
	}
	slices.SortFunc(items, func(x, y item) int {
		if c := cmp.Or(cmp.Compare(x.run, y.run), cmp.Compare(x.k1, y.k1), cmp.Compare(x.k2, y.k2)); c != 0 {
			return c
		}
		return b.order.cmp(x.r, y.r)
	})
	recs := make([]*record, b.n)
	for i := range items {
		recs[i] = items[i].r
	}
	return recs
}

// fileOrder is the trace file's order: by run, message and then recordCmp (start
// first), so that a bounded file holds whole messages, the lowest ids first.
var fileOrder = recordOrder{
	cmp: func(a, b *record) int {
		return cmp.Or(cmp.Compare(a.run, b.run), cmp.Compare(a.trace, b.trace), recordCmp(a, b))
	},
	keys: func(r *record) (uint64, uint64) { return r.trace, timeKey(r.start) },
}

// timeOrder is the timeline's order for stages: by run, start, then recordCmp (start,
// end, ...).
var timeOrder = recordOrder{
	cmp: func(a, b *record) int {
		return cmp.Or(cmp.Compare(a.run, b.run), cmp.Compare(a.start, b.start), recordCmp(a, b), cmp.Compare(a.trace, b.trace))
	},
	keys: func(r *record) (uint64, uint64) { return timeKey(r.start), timeKey(r.end) },
}

// gaugeOrder is the timeline's order for gauge values: by run, time, block, gauge and
// value.
var gaugeOrder = recordOrder{
	cmp: func(a, b *record) int {
		return cmp.Or(cmp.Compare(a.run, b.run), cmp.Compare(a.start, b.start), strings.Compare(a.actor, b.actor),
			strings.Compare(a.name, b.name), cmp.Compare(gaugeValue(a), gaugeValue(b)))
	},
	keys: func(r *record) (uint64, uint64) { return timeKey(r.start), 0 },
}

func gaugeValue(r *record) int64 {
	if len(r.attrs) == 0 {
		return 0
	}
	return r.attrs[0].Int
}

// timeOf is the simulated time a bound cut the timeline at, for the report.
func (b *bounded) timeOf() actors.Time { return b.cut.start }
