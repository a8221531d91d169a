package mpi

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params are the protocol limits and software costs of the MPI library. The papers
// give none of them (Pedretti & Hudson 2005 s.5 measure an MPI over Portals without
// describing it), so every default is assumed, with its rationale; all are keys of the
// mpi group (`run params mpi`).
type Params struct {
	EagerMax actors.Bytes `param:"eager_max" help:"largest message sent by the short (eager) protocol; longer messages use the long protocol (put, then a get by the receiver if the put found no posted receive)" source:"assumed: 128000 B, the default short-message limit of Cray's MPI for Portals on the XT3 (MPICH_MAX_SHORT_MSG_SIZE)"`

	UnexpectedBuffers     int          `param:"unexpected_buffers" help:"memory descriptors that catch unexpected short messages; one is re-posted when all its messages have been received" source:"assumed: 15 x 4 MiB, the 60 MB of unexpected buffer space of Cray's MPI on the XT (MPICH_UNEX_BUFFER_SIZE)"`
	UnexpectedBufferBytes actors.Bytes `param:"unexpected_buffer_bytes" help:"size of each unexpected-message buffer; it retires when less than eager_max remains" source:"assumed: see unexpected_buffers"`

	EQEvents         int `param:"eq_events" help:"capacity of the event queue of sends and posted receives (it grows in host memory as it fills); overflowing it is an error" source:"assumed: 2048, Cray's MPI on the XT (MPICH_PTL_OTHER_EVENTS)"`
	UnexpectedEvents int `param:"unexpected_events" help:"capacity of the event queue of the unexpected-message entries, two events per unexpected message (it grows as it fills); overflowing it is an error" source:"assumed: 20480, Cray's MPI on the XT (MPICH_PTL_UNEX_EVENTS)"`

	CallCost        actors.Duration  `param:"call_cost" help:"host time of an MPI call besides its Portals calls: argument checks, request set-up, match bits" source:"assumed: about 200 instructions of MPICH at 2 GHz"`
	SearchCost      actors.Duration  `param:"search_cost" help:"host time per unexpected message examined when a receive searches the unexpected queue" source:"assumed: one list node, mostly cached"`
	ReduceBandwidth actors.Bandwidth `param:"reduce_bandwidth" help:"rate at which a reduction combines two vectors (bytes of one operand per second)" source:"assumed: memory bound, like host.memcpy_bandwidth"`
}

// DefaultParams returns the assumed defaults.
func DefaultParams() Params {
	return Params{
		EagerMax:          128000,
		UnexpectedBuffers: 15, UnexpectedBufferBytes: 4 * actors.MiB,
		EQEvents: 2048, UnexpectedEvents: 20480,
		CallCost: 100 * actors.Nanosecond, SearchCost: 20 * actors.Nanosecond,
		ReduceBandwidth: 2 * actors.GBPerSecond,
	}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.EagerMax < 0:
		return fmt.Errorf("eager_max must be >= 0B (got %s)", p.EagerMax)
	case p.UnexpectedBuffers < 1:
		return fmt.Errorf("unexpected_buffers must be >= 1 (got %d)", p.UnexpectedBuffers)
	case p.UnexpectedBufferBytes < p.EagerMax || p.UnexpectedBufferBytes < 1:
		return fmt.Errorf("unexpected_buffer_bytes (%s) must be >= eager_max (%s) and >= 1B: an eager message must fit one buffer",
			p.UnexpectedBufferBytes, p.EagerMax)
	case p.EQEvents < 8:
		return fmt.Errorf("eq_events must be >= 8 (got %d)", p.EQEvents)
	case p.UnexpectedEvents < 8:
		return fmt.Errorf("unexpected_events must be >= 8 (got %d)", p.UnexpectedEvents)
	case p.CallCost < 0 || p.SearchCost < 0:
		return fmt.Errorf("call_cost and search_cost must be >= 0")
	case p.ReduceBandwidth <= 0:
		return fmt.Errorf("reduce_bandwidth must be > 0 (got %s)", p.ReduceBandwidth)
	}
	return nil
}
