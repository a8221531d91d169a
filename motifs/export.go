package motifs

import "github.com/seastar-sim/seastar/actors"

// A rank's log is exported (actors.Graph.Export) so that every process of a run split
// across processes computes the results from every rank's log.

// Snapshot implements actors.Snapshotter.
func (lg *rankLog) Snapshot(e *actors.Encoder) {
	times := func(ts []actors.Time) {
		e.Uint(uint64(len(ts)))
		for _, t := range ts {
			e.Time(t)
		}
	}
	msgs := func(ms []msgRec) {
		e.Uint(uint64(len(ms)))
		for _, m := range ms {
			e.Int(int64(m.peer))
			e.Bool(m.timed)
			e.Time(m.at)
		}
	}
	times(lg.starts)
	times(lg.ends)
	msgs(lg.sends)
	msgs(lg.recvd)
	e.Uint(uint64(len(lg.calls)))
	for _, c := range lg.calls {
		e.Duration(c)
	}
	e.Int(lg.bytes)
	e.Int(lg.msgs)
	e.Int(lg.verified)
	e.Int(lg.corrupt)
	e.Int(lg.dupes)
	e.Int(lg.payloads)
}

// Restore implements actors.Snapshotter.
func (lg *rankLog) Restore(d *actors.Decoder) {
	times := func() []actors.Time {
		ts := make([]actors.Time, d.Count(1))
		for i := range ts {
			ts[i] = d.Time()
		}
		return ts
	}
	msgs := func() []msgRec {
		ms := make([]msgRec, d.Count(3))
		for i := range ms {
			ms[i] = msgRec{peer: int32(d.Int()), timed: d.Bool(), at: d.Time()}
		}
		return ms
	}
	lg.starts, lg.ends = times(), times()
	lg.sends, lg.recvd = msgs(), msgs()
	lg.calls = make([]actors.Duration, d.Count(1))
	for i := range lg.calls {
		lg.calls[i] = d.Duration()
	}
	lg.bytes, lg.msgs = d.Int(), d.Int()
	lg.verified, lg.corrupt, lg.dupes, lg.payloads = d.Int(), d.Int(), d.Int(), d.Int()
}
