package phold

import "github.com/seastar-sim/seastar/actors"

// Event crosses processes in a multi-process run (it carries nothing).
func init() {
	actors.RegisterCodec("phold.Event", func(*actors.Encoder, Event) {}, func(*actors.Decoder) Event { return Event{} })
}
