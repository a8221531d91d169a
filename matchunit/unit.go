package matchunit

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// PortPPC is the unit's only port, to the PPC's coprocessor port.
const PortPPC actors.Port = 0

// Request is a header's match work: Walk list entries examined, in list order.
type Request struct {
	Tag  uint64
	Walk int
	actors.PoolMark
}

func (r Request) String() string { return fmt.Sprintf("matchunit.Request(#%d walk %d)", r.Tag, r.Walk) }

// Result answers the request with the same tag. The unit sends a *Result from
// NewResult, which the receiver releases once it has read it.
type Result struct {
	Tag uint64
	actors.PoolMark
}

func (r Result) String() string { return fmt.Sprintf("matchunit.Result(#%d)", r.Tag) }

var (
	requests actors.Pool[Request, *Request]
	results  actors.Pool[Result, *Result]
)

// NewRequest returns r recycled, which the unit releases once it has read it (a
// Request value sent as it is also works, boxed into an allocation of its own).
func NewRequest(r Request) *Request { return requests.New(r) }

// Release recycles r if it came from NewRequest; the caller must be its last holder.
func (r *Request) Release() { requests.Release(r) }

// Release recycles r; the caller must be its last holder.
func (r *Result) Release() { results.Release(r) }

// Unit is the match unit actor.
type Unit struct {
	p     Params
	free  actors.Time // the compare array is free from then on
	Stats Stats
}

// Stats counts the unit's work.
type Stats struct {
	Requests int64
	Compared int64           // entries compared on chip
	Fetched  int64           // entries fetched from memory
	Busy     actors.Duration // time the compare array was busy
	Wait     actors.Duration // time headers waited for the compare array
}

// New returns a unit. p must be valid.
func New(p Params) *Unit { return &Unit{p: p} }

// Ports implements actors.Ported.
func (u *Unit) Ports() []string { return []string{"ppc"} }

// Busy is the time the compare array takes for a walk of n entries: the entries on
// chip at Compares a cycle, then one fetch per entry past Entries.
func (p Params) Busy(n int) actors.Duration {
	on := min(n, p.Entries)
	cycles := int64((on + p.Compares - 1) / p.Compares)
	return p.Clock.Cycles(max(cycles, 1)) + actors.Duration(n-on)*p.Fetch
}

// Receive implements actors.Actor.
func (u *Unit) Receive(ctx actors.Context, m actors.Msg) {
	var r Request
	switch m := m.(type) {
	case *Request:
		r = *m
		m.Release()
	case Request:
		r = m
	default:
		ctx.Fatalf("matchunit: unexpected %T (%s)", m, m)
		return
	}
	now := ctx.Now()
	start := max(now, u.free)
	busy := u.p.Busy(r.Walk)
	u.free = start.Add(busy)
	u.Stats.Requests++
	u.Stats.Compared += int64(min(r.Walk, u.p.Entries))
	u.Stats.Fetched += int64(max(r.Walk-u.p.Entries, 0))
	u.Stats.Busy += busy
	u.Stats.Wait += start.Sub(now)
	done := u.free.Add(u.p.Clock.Cycles(int64(u.p.Pipeline)))
	ctx.Send(PortPPC, results.New(Result{Tag: r.Tag}), done.Sub(now))
}
