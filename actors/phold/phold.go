// Package phold is the PHOLD benchmark of parallel discrete-event simulation, with the
// parameters of ROSS's phold model: a fixed population of logical processes (LPs), each
// starting with StartEvents events; every event schedules one new event at
// now + Lookahead + Exp(Mean), sent to a uniformly random LP with probability Remote and
// to the LP itself otherwise. It exercises the kernel only: event queue, cross-partition
// exchange and synchronization, with no model work per event.
package phold

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params configures a PHOLD run. Start from DefaultParams; Validate before use.
type Params struct {
	LPs         int             `param:"lps" help:"number of logical processes" source:"kernel benchmark configuration (1024 LPs)"`
	Remote      actors.Prob     `param:"remote" help:"probability that an event goes to a uniformly random LP instead of its own LP" source:"ROSS phold default"`
	Mean        actors.Duration `param:"mean" help:"mean of the exponential part of the event delay" source:"ROSS phold default (1 time unit = 1 ns)"`
	Lookahead   actors.Duration `param:"lookahead" help:"fixed part of the event delay: the minimum delay between LPs" source:"ROSS phold default (1 time unit = 1 ns)"`
	End         actors.Time     `param:"end" help:"simulated end time: events at or after it are not executed" source:"kernel benchmark configuration (10 us)"`
	StartEvents int             `param:"start_events" help:"events each LP holds at time zero" source:"ROSS phold default"`
	// FailAt injects a fault to exercise error handling: lp[0] calls Fatalf at its
	// first event at or after FailAt. Zero disables it.
	FailAt actors.Time `param:"fail_at" help:"fault injection: lp[0] fails at its first event at or after this time (0 = off)" source:"test hook, off by default"`
}

// DefaultParams returns the configuration of the kernel issue's benchmark (ROSS phold
// defaults for remote, mean, lookahead and start events; 1024 LPs; 10 us).
func DefaultParams() Params {
	return Params{
		LPs:         1024,
		Remote:      actors.MustParseProb("0.25"),
		Mean:        actors.Nanosecond,
		Lookahead:   actors.Nanosecond,
		End:         actors.Time(10 * actors.Microsecond),
		StartEvents: 1,
	}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.LPs < 1:
		return fmt.Errorf("phold: lps must be >= 1 (got %d)", p.LPs)
	case p.Mean < 0:
		return fmt.Errorf("phold: mean must be >= 0 (got %s)", p.Mean)
	case p.Lookahead < 0:
		return fmt.Errorf("phold: lookahead must be >= 0 (got %s)", p.Lookahead)
	case p.End <= 0:
		return fmt.Errorf("phold: end must be > 0 (got %s)", p.End)
	case p.StartEvents < 0:
		return fmt.Errorf("phold: start_events must be >= 0 (got %d)", p.StartEvents)
	case p.FailAt < 0:
		return fmt.Errorf("phold: fail_at must be >= 0 (got %s)", p.FailAt)
	}
	return nil
}

// Event is the PHOLD message. It carries nothing: its key (time, source, destination,
// sequence) is the whole state of the benchmark. Being zero-size, it is sent without
// an allocation.
type Event struct{}

func (Event) String() string { return "phold.Event" }

// LP is one logical process.
type LP struct {
	p   *Params
	lps *[]actors.ActorID // every LP, by index; filled after the model is built
}

// Start schedules the LP's initial events.
func (lp *LP) Start(ctx actors.Context) {
	for range lp.p.StartEvents {
		ctx.SendTo(ctx.Self(), Event{}, ctx.Rand().Exp(lp.p.Mean))
	}
}

// Receive handles an event by scheduling the next one.
func (lp *LP) Receive(ctx actors.Context, m actors.Msg) {
	if _, ok := m.(Event); !ok {
		ctx.Fatalf("phold: unexpected %T", m)
	}
	if lp.p.FailAt > 0 && ctx.Now() >= lp.p.FailAt && ctx.Self() == (*lp.lps)[0] {
		ctx.Fatalf("phold: injected fault (fail_at %s)", lp.p.FailAt)
	}
	r := ctx.Rand()
	dst := ctx.Self()
	if lp.p.Remote.Sample(r.Uint64()) {
		dst = (*lp.lps)[r.IntN(len(*lp.lps))]
	}
	ctx.SendTo(dst, Event{}, r.Exp(lp.p.Mean))
}

// Name returns the actor name of LP i.
func Name(i int) string { return actors.Indexed("lp", i) }

// Build returns the PHOLD model: p.LPs actors named lp[i] with direct sends whose
// latency is the lookahead.
func Build(p Params) (*actors.Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	g := actors.NewGraph()
	lps := new([]actors.ActorID)
	for i := range p.LPs {
		g.Add(Name(i), &LP{p: &p, lps: lps})
	}
	g.SetDirectLatency(p.Lookahead)
	m, err := g.Build()
	if err != nil {
		return nil, err
	}
	*lps = make([]actors.ActorID, p.LPs)
	for i := range p.LPs {
		(*lps)[i], _ = m.ID(Name(i))
	}
	return m, nil
}
