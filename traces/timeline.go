package traces

import (
	"bufio"
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

// tlEvent is one trace event: name, cat, ph, ts and dur (microseconds, if has), pid,
// tid, id, bp and args, written by appendJSON as encoding/json writes the struct of
// those fields with omitempty on cat, ts, dur, tid, id, bp and args (args a map;
// TestTimelineEventsAreEncodingJSON compares them).
type tlEvent struct {
	name, cat, ph string
	ts, dur       actors.Time
	hasTs, hasDur bool
	pid, tid, id  int
	bp            string
	args          []lineAttr // distinct keys
}

// appendJSON appends the event's object to b.
func (e *tlEvent) appendJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, e.name)
	if e.cat != "" {
		b = append(b, `,"cat":`...)
		b = appendJSONString(b, e.cat)
	}
	b = append(b, `,"ph":`...)
	b = appendJSONString(b, e.ph)
	if e.hasTs {
		b = append(b, `,"ts":`...)
		b = appendUs(b, e.ts)
	}
	if e.hasDur {
		b = append(b, `,"dur":`...)
		b = appendUs(b, e.dur)
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(e.pid), 10)
	if e.tid != 0 {
		b = append(b, `,"tid":`...)
		b = strconv.AppendInt(b, int64(e.tid), 10)
	}
	if e.id != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, int64(e.id), 10)
	}
	if e.bp != "" {
		b = append(b, `,"bp":`...)
		b = appendJSONString(b, e.bp)
	}
	if len(e.args) > 0 {
		b = append(b, `,"args":`...)
		b = appendJSONObject(b, e.args)
	}
	return append(b, '}')
}

// appendUs appends t in microseconds with picosecond precision.
func appendUs(b []byte, t actors.Time) []byte {
	return strconv.AppendFloat(b, float64(t)/1e6, 'f', 6, 64)
}

// tlWriter writes the events of a timeline as they come, in their order.
type tlWriter struct {
	w    *bufio.Writer
	buf  []byte
	args []lineAttr // the current event's arguments, reused
	n    int
}

// emit writes e.
func (t *tlWriter) emit(e *tlEvent) {
	t.buf = t.buf[:0]
	if t.n > 0 {
		t.buf = append(t.buf, ',')
	}
	t.buf = append(e.appendJSON(t.buf), '\n')
	t.n++
	_, _ = t.w.Write(t.buf) // a failed write fails the Flush at the end
}

// arg starts the arguments of an event, in the writer's reused list, with a; setAttr
// adds to them (the caller stores the list back in args, to keep its array).
func (t *tlWriter) arg(a lineAttr) []lineAttr {
	t.args = append(t.args[:0], a)
	return t.args
}

// strArg is a string argument.
func strArg(key, s string) lineAttr { return lineAttr{key: key, str: s, isStr: true} }

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
	// Processes, numbered in order of name: a node (or the network), in a run if there
	// are several.
	type procKey struct {
		run  int
		proc string
	}
	pid := map[procKey]int{}
	for _, r := range stages {
		p, _ := place(r.actor)
		pid[procKey{r.run, p}] = 0
	}
	for _, g := range gauges {
		p, _ := place(g.actor)
		pid[procKey{g.run, p}] = 0
	}
	type proc struct {
		key  procKey
		name string
	}
	procs := make([]proc, 0, len(pid))
	for k := range pid { //lint:ordered sorted below
		name := k.proc
		if multi {
			name = fmt.Sprintf("run %d %s", k.run, k.proc)
		}
		procs = append(procs, proc{k, name})
	}
	slices.SortFunc(procs, func(a, b proc) int { return strings.Compare(a.name, b.name) })
	f, err := os.Create(c.cfg.Timeline)
	if err != nil {
		return fmt.Errorf("trace timeline: %w", err)
	}
	out := &tlWriter{w: bufio.NewWriterSize(f, 1<<16)}
	_, _ = out.w.WriteString("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")
	for i, p := range procs {
		pid[p.key] = i + 1
		out.emit(&tlEvent{name: "process_name", ph: "M", pid: i + 1, args: out.arg(strArg("name", p.name))})
	}
	// Tracks: a block of a process, in lanes where its stages overlap.
	type laneKey struct {
		proc  procKey
		block string
	}
	type lane struct {
		ends []actors.Time
		tids []int
	}
	lanes := map[laneKey]*lane{}
	tid := 0
	where := make([][2]int, len(stages)) // pid, tid of each stage
	for i, r := range stages {
		p, b := place(r.actor)
		pk := procKey{r.run, p}
		l := lanes[laneKey{pk, b}]
		if l == nil {
			l = &lane{}
			lanes[laneKey{pk, b}] = l
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
			out.emit(&tlEvent{name: "thread_name", ph: "M", pid: pid[pk], tid: tid, args: out.arg(strArg("name", name))})
		}
		l.ends[k] = r.end
		where[i] = [2]int{pid[pk], l.tids[k]}
		args := out.arg(strArg("message", strconv.FormatUint(r.trace, 10)))
		for _, a := range r.attrs {
			args = setAttr(args, attrOf(a))
		}
		out.args = args
		out.emit(&tlEvent{name: r.name, cat: "stage", ph: "X", ts: r.start, hasTs: true, dur: r.end - r.start, hasDur: true,
			pid: where[i][0], tid: where[i][1], args: args})
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
			out.emit(&tlEvent{name: name, cat: "flow", ph: "s", id: flow, ts: a.start, hasTs: true, pid: where[idx[j-1]][0], tid: where[idx[j-1]][1]})
			out.emit(&tlEvent{name: name, cat: "flow", ph: "f", bp: "e", id: flow, ts: b.start, hasTs: true, pid: where[idx[j]][0], tid: where[idx[j]][1]})
		}
	}
	// Counters: one track per block and gauge.
	for _, g := range gauges {
		p, b := place(g.actor)
		out.emit(&tlEvent{name: b + " " + g.name, ph: "C", ts: g.start, hasTs: true, pid: pid[procKey{g.run, p}],
			args: out.arg(lineAttr{key: g.name, num: g.attrs[0].Int})})
	}
	_, _ = out.w.WriteString("]}\n")
	if err := out.w.Flush(); err != nil {
		_ = f.Close()
		return fmt.Errorf("trace timeline: %w", err)
	}
	return f.Close()
}
