package matchunit

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params configures a match unit. Start from DefaultParams; Validate before use.
type Params struct {
	Clock    actors.Freq     `param:"clock" help:"match unit clock" source:"assumed: the SeaStar's 500 MHz core clock"`
	Entries  int             `param:"entries" help:"list entries held on chip; entries past them are fetched from memory" source:"assumed: 256"`
	Compares int             `param:"compares_per_cycle" help:"list entries compared per cycle (width of the compare array)" source:"assumed: 4"`
	Pipeline int             `param:"pipeline_cycles" help:"cycles from a header entering the unit to its result leaving it, besides the compares" source:"assumed: 8"`
	Fetch    actors.Duration `param:"fetch" help:"time to fetch one list entry that is not on chip, from NIC SRAM" source:"assumed: 20 ns, ten 500 MHz cycles for a 64-byte entry"`
}

// DefaultParams returns the defaults.
func DefaultParams() Params {
	return Params{Clock: 500 * actors.Megahertz, Entries: 256, Compares: 4, Pipeline: 8, Fetch: 20 * actors.Nanosecond}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.Clock <= 0:
		return fmt.Errorf("clock must be > 0 (got %s)", p.Clock)
	case p.Entries < 0:
		return fmt.Errorf("entries must be >= 0 (got %d)", p.Entries)
	case p.Compares < 1:
		return fmt.Errorf("compares_per_cycle must be >= 1 (got %d)", p.Compares)
	case p.Pipeline < 0:
		return fmt.Errorf("pipeline_cycles must be >= 0 (got %d)", p.Pipeline)
	case p.Fetch < 0:
		return fmt.Errorf("fetch must be >= 0 (got %s)", p.Fetch)
	}
	return nil
}
