package traces

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// The timeline (--trace-timeline) is the Chrome trace-event format that the Perfetto
// UI and chrome://tracing open: a process per node (and one for the network outside
// the nodes), a track per block, each stage of a sampled message a complete event on
// its block's track, flow arrows from each stage of a message to the next, and the
// blocks' gauges (queue depths) as counter tracks. Stages that overlap on one block
// (a wait beside the work, two packets in a pipeline) go to extra lanes of the block
// ("ppc (2)"), so that no track holds overlapping events. Times are microseconds with
// picosecond precision; the content and order depend only on the simulation.

// tlEvent is one trace event.
type tlEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   json.Number    `json:"ts,omitempty"`
	Dur  json.Number    `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid,omitempty"`
	ID   int            `json:"id,omitempty"`
	Bp   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

func usTime(t actors.Time) json.Number {
	return json.Number(strconv.FormatFloat(float64(t)/1e6, 'f', 6, 64))
}

// place splits an actor name into its process ("node[...]", or "network") and block.
func place(actor string) (proc, block string) {
	if n := nodeOf(actor); n != "" {
		return n, strings.TrimPrefix(actor[len(n):], ".")
	}
	if actor == "" {
		return "network", "other"
	}
	return "network", actor
}

// writeTimeline writes c.cfg.Timeline from the stages and gauges kept.
// and counts them into st.
func (c *Collector) writeTimeline(st *TimelineStats) error {
	stages := c.tl.sorted()
	gauges := c.gauges.sorted()
	st.Stages, st.Counters = int64(len(stages)), int64(len(gauges))
	multi := len(c.models) > 1
	procName := func(run int, proc string) string {
		if multi {
			return fmt.Sprintf("run %d %s", run, proc)
		}
		return proc
	}
	// Processes and tracks, numbered in order of name.
	var procs []string
	for _, r := range stages {
		p, _ := place(r.actor)
		procs = append(procs, procName(r.run, p))
	}
	for _, g := range gauges {
		p, _ := place(g.actor)
		procs = append(procs, procName(g.run, p))
	}
	slices.Sort(procs)
	procs = slices.Compact(procs)
	pid := map[string]int{}
	var events []tlEvent
	for i, p := range procs {
		pid[p] = i + 1
		events = append(events, tlEvent{Name: "process_name", Ph: "M", Pid: i + 1, Args: map[string]any{"name": p}})
	}
	type lane struct {
		key  string // process and block
		ends []actors.Time
		tids []int
	}
	lanes := map[string]*lane{}
	tid := 0
	where := make([][2]int, len(stages)) // pid, tid of each stage
	for i, r := range stages {
		p, b := place(r.actor)
		pn := procName(r.run, p)
		key := pn + "\x00" + b
		l := lanes[key]
		if l == nil {
			l = &lane{key: key}
			lanes[key] = l
		}
		k := slices.IndexFunc(l.ends, func(end actors.Time) bool { return end <= r.start })
		if k < 0 {
			tid++
			k = len(l.ends)
			l.ends, l.tids = append(l.ends, 0), append(l.tids, tid)
			name := b
			if k > 0 {
				name = fmt.Sprintf("%s (%d)", b, k+1)
			}
			events = append(events, tlEvent{Name: "thread_name", Ph: "M", Pid: pid[pn], Tid: tid, Args: map[string]any{"name": name}})
		}
		l.ends[k] = r.end
		where[i] = [2]int{pid[pn], l.tids[k]}
		args := map[string]any{"message": strconv.FormatUint(r.trace, 10)}
		for _, a := range r.attrs {
			if a.Str != "" {
				args[a.Key] = a.Str
			} else {
				args[a.Key] = a.Int
			}
		}
		events = append(events, tlEvent{Name: r.name, Cat: "stage", Ph: "X", Ts: usTime(r.start), Dur: usTime(r.end - r.start),
			Pid: where[i][0], Tid: where[i][1], Args: args})
	}
	// Flows: each stage of a message to its next stage, in start order.
	byMsg := map[msgKey][]int{}
	var keys []msgKey
	for i, r := range stages {
		k := msgKey{r.run, r.trace}
		if _, ok := byMsg[k]; !ok {
			keys = append(keys, k)
		}
		byMsg[k] = append(byMsg[k], i)
	}
	flow := 0
	for _, k := range keys {
		idx := byMsg[k]
		for j := 1; j < len(idx); j++ {
			a, b := stages[idx[j-1]], stages[idx[j]]
			flow++
			name := "message " + strconv.FormatUint(k.id, 10)
			events = append(events,
				tlEvent{Name: name, Cat: "flow", Ph: "s", ID: flow, Ts: usTime(a.start), Pid: where[idx[j-1]][0], Tid: where[idx[j-1]][1]},
				tlEvent{Name: name, Cat: "flow", Ph: "f", Bp: "e", ID: flow, Ts: usTime(b.start), Pid: where[idx[j]][0], Tid: where[idx[j]][1]})
		}
	}
	// Counters: one track per block and gauge.
	for _, g := range gauges {
		p, b := place(g.actor)
		events = append(events, tlEvent{Name: b + " " + g.name, Ph: "C", Ts: usTime(g.start), Pid: pid[procName(g.run, p)],
			Args: map[string]any{g.name: g.attrs[0].Int}})
	}
	f, err := os.Create(c.cfg.Timeline)
	if err != nil {
		return fmt.Errorf("trace timeline: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	fmt.Fprint(w, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")
	enc := json.NewEncoder(w)
	for i := range events {
		if i > 0 {
			fmt.Fprint(w, ",")
		}
		if err := enc.Encode(&events[i]); err != nil {
			_ = f.Close()
			return fmt.Errorf("trace timeline: %w", err)
		}
	}
	fmt.Fprint(w, "]}\n")
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return fmt.Errorf("trace timeline: %w", err)
	}
	return f.Close()
}
