package cam

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params configures the CAM. Start from DefaultParams; Validate before use.
type Params struct {
	Entries       int             `param:"entries" help:"source CAM entries" source:"Dillow & Atchley 2011 s.II"`
	QueueDepth    int             `param:"queue_depth" help:"RX commands queued per CAM entry" source:"Dillow & Atchley 2011 s.II"`
	CommandMax    actors.Bytes    `param:"command_max" help:"largest length one RX command may cover" source:"Dillow & Atchley 2011 s.II"`
	LookupLatency actors.Duration `param:"lookup_latency" help:"time to match a source and hand out its command" source:"assumed: one 500 MHz cycle"`
}

// DefaultParams returns the SeaStar CAM.
func DefaultParams() Params {
	return Params{Entries: 256, QueueDepth: 7, CommandMax: 256 * actors.KiB, LookupLatency: 2 * actors.Nanosecond}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.Entries < 1 || p.Entries > 1<<15:
		return fmt.Errorf("entries must be in 1..32768 (got %d)", p.Entries)
	case p.QueueDepth < 1:
		return fmt.Errorf("queue_depth must be >= 1 (got %d)", p.QueueDepth)
	case p.CommandMax < 1:
		return fmt.Errorf("command_max must be >= 1B (got %s)", p.CommandMax)
	case p.LookupLatency < 0:
		return fmt.Errorf("lookup_latency must be >= 0 (got %s)", p.LookupLatency)
	}
	return nil
}
