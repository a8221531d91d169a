package motifs

import (
	"cmp"
	"slices"

	"github.com/seastar-sim/seastar/actors"
)

// summarize computes the results from the ranks' logs.
func (e *env) summarize(res *Result) {
	first, last := actors.MaxTime, actors.Time(0)
	var lats []actors.Duration
	for i := range e.logs {
		lg := &e.logs[i]
		for k := range lg.starts {
			first, last = min(first, lg.starts[k]), max(last, lg.ends[k])
			res.IterMax = max(res.IterMax, lg.ends[k].Sub(lg.starts[k]))
		}
		res.Bytes += lg.bytes
		res.Messages += lg.msgs
		res.Verified += lg.verified
		res.Corrupt += lg.corrupt
		res.Duplicates += lg.dupes
		res.Sent += int64(len(lg.sends)) + lg.payloads
		lats = append(lats, lg.calls...)
	}
	span := last.Sub(first)
	res.IterTime = span / actors.Duration(e.cfg.Iters)
	if s := span.Seconds(); s > 0 {
		res.Bandwidth = float64(res.Bytes) / s
		res.PerRank = res.Bandwidth / float64(res.Ranks)
	}
	if !e.cfg.Motif.collective() {
		lats = e.messageLatencies()
	}
	slices.Sort(lats)
	res.Latencies = len(lats)
	if len(lats) > 0 {
		res.LatencyP50, res.LatencyP99, res.LatencyMax = percentile(lats, 50), percentile(lats, 99), lats[len(lats)-1]
	}
}

// percentile is the nearest-rank percentile of sorted samples.
func percentile(sorted []actors.Duration, p int) actors.Duration {
	i := (p*len(sorted) + 99) / 100 // ceil(p/100 * n), 1-based
	return sorted[max(i, 1)-1]
}

// flow is one message seen from one side: between src and dst, the k-th of that pair.
type flow struct {
	src, dst int32
	k        int
	timed    bool
	at       actors.Time
}

// messageLatencies pairs every message's send with its receive: messages between two
// ranks with the same tag are received in the order they were sent (MPI
// non-overtaking) and the motifs never reorder tags between two ranks, so the k-th
// send from s to d is the k-th receive at d from s. Only messages sent in timed
// iterations count.
func (e *env) messageLatencies() []actors.Duration {
	var sends, recvs []flow
	for r := range e.logs {
		for i, m := range e.logs[r].sends {
			sends = append(sends, flow{src: int32(r), dst: m.peer, k: i, timed: m.timed, at: m.at})
		}
		for i, m := range e.logs[r].recvd {
			recvs = append(recvs, flow{src: m.peer, dst: int32(r), k: i, at: m.at})
		}
	}
	order := func(a, b flow) int {
		return cmp.Or(cmp.Compare(a.src, b.src), cmp.Compare(a.dst, b.dst), cmp.Compare(a.k, b.k))
	}
	slices.SortFunc(sends, order)
	slices.SortFunc(recvs, order)
	var out []actors.Duration
	for i, j := 0, 0; i < len(sends) && j < len(recvs); {
		s, r := sends[i], recvs[j]
		switch {
		case s.src != r.src || s.dst != r.dst: // a pair seen on one side only (should not happen)
			if order(flow{src: s.src, dst: s.dst}, flow{src: r.src, dst: r.dst}) < 0 {
				i++
			} else {
				j++
			}
			continue
		}
		if s.timed {
			out = append(out, r.at.Sub(s.at))
		}
		i++
		j++
	}
	return out
}
