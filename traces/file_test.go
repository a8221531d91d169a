package traces

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seastar-sim/seastar/actors"
)

// refFileSpan is the FileSpan of a span as the trace file documents it (show.go reads
// it back): what lineEncoder must write as encoding/json would.
func refFileSpan(c *Collector, tid, sid, parent []byte, r *record) FileSpan {
	s := FileSpan{TraceID: hex.EncodeToString(tid), SpanID: hex.EncodeToString(sid), Name: r.name,
		StartPS: int64(r.start), EndPS: int64(r.end), Actor: r.actor, Service: serviceOf(c.cfg, r.actor)}
	if parent != nil {
		s.Parent = hex.EncodeToString(parent)
	}
	if len(r.attrs) > 0 || r.root {
		s.Attrs = make(map[string]any, len(r.attrs)+2)
		for _, a := range r.attrs {
			if a.Str != "" {
				s.Attrs[a.Key] = a.Str
			} else {
				s.Attrs[a.Key] = a.Int
			}
		}
		if r.root {
			s.Attrs["message.id"] = fmt.Sprint(r.trace)
			if r.cause != 0 {
				s.Attrs["cause.message.id"] = fmt.Sprint(r.cause)
			}
			if len(c.models) > 1 {
				s.Attrs["run"] = r.run
			}
		}
	}
	return s
}

// Every line of the trace file is what encoding/json's Encoder writes for the span's
// FileSpan: escapes (quotes, control bytes, HTML characters, invalid UTF-8, line
// separators), a key set twice, a root's ids, omitted fields, several runs.
func TestTraceFileLinesAreEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	words := []string{"", "put", "node[1,2,3].ppc", "network", "a\"b", `back\slash`, "<tag>&amp;", "a&b", "x>y", "tab\there",
		"new\nline", "\x01\x1f\x7f", "é ü 漢", "\xff\xfe bad", "sep\u2028par\u2029", "nbsp\u00a0", "message.id", "run"}
	word := func() string { return words[r.IntN(len(words))] }
	for _, models := range []int{1, 2} {
		c := &Collector{cfg: Config{Service: word() + "svc"}, models: map[*actors.Model]int{}}
		for i := range models {
			c.models[&actors.Model{}] = i
		}
		var enc lineEncoder
		for i := range 5000 {
			rec := record{trace: r.Uint64(), run: r.IntN(3), name: word(), actor: word(),
				start: actors.Time(r.Int64N(1 << 40)), end: actors.Time(r.Int64N(1 << 40)), root: r.IntN(3) == 0}
			if r.IntN(2) == 0 {
				rec.actor = "node[" + fmt.Sprint(r.IntN(9)) + ",0,0]." + word()
			}
			if rec.root && r.IntN(2) == 0 {
				rec.cause = r.Uint64()
			}
			for range r.IntN(5) {
				a := actors.Attr{Key: word()}
				if r.IntN(2) == 0 {
					a.Str = word()
				} else {
					a.Int = r.Int64N(1<<62) - 1<<61
				}
				rec.attrs = append(rec.attrs, a)
			}
			tid, sid, parent := make([]byte, 16), make([]byte, 8), make([]byte, 8)
			for _, x := range [][]byte{tid, sid, parent} {
				for k := range x {
					x[k] = byte(r.Uint32())
				}
			}
			if r.IntN(4) == 0 {
				parent = nil
			}
			var want bytes.Buffer
			require.NoError(t, json.NewEncoder(&want).Encode(refFileSpan(c, tid, sid, parent, &rec)))
			got := enc.appendSpan(nil, c, tid, sid, parent, &rec)
			require.Equal(t, want.String(), string(got), "span %d, %d models", i, models)
		}
	}
}

// refTLEvent is a timeline event as the Chrome trace-event format has it, for
// encoding/json: what tlEvent.appendJSON must write.
type refTLEvent struct {
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

// Every timeline event is what encoding/json writes for it (times in microseconds with
// six decimals, omitted fields, escaped strings, sorted arguments).
func TestTimelineEventsAreEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	words := []string{"", "X", "M", "flow", "stage", "node[1,2,3] ppc", "a\"b", "<i>&", "tab\t", "\xff", "é", "sep\u2028"}
	word := func() string { return words[r.IntN(len(words))] }
	us := func(t actors.Time) json.Number { return json.Number(strconv.FormatFloat(float64(t)/1e6, 'f', 6, 64)) }
	for i := range 5000 {
		e := tlEvent{name: word(), cat: word(), ph: word(), pid: r.IntN(5), tid: r.IntN(3), id: r.IntN(3), bp: word()}
		ref := refTLEvent{Name: e.name, Cat: e.cat, Ph: e.ph, Pid: e.pid, Tid: e.tid, ID: e.id, Bp: e.bp}
		if r.IntN(3) > 0 {
			e.ts, e.hasTs = actors.Time(r.Int64N(1<<45)), true
			ref.Ts = us(e.ts)
		}
		if r.IntN(2) == 0 {
			e.dur, e.hasDur = actors.Time(r.Int64N(1<<20)), true
			ref.Dur = us(e.dur)
		}
		for range r.IntN(4) {
			a := lineAttr{key: word()}
			if r.IntN(2) == 0 {
				a.str, a.isStr = word()+"v", true
			} else {
				a.num = r.Int64N(1 << 50)
			}
			e.args = setAttr(e.args, a)
		}
		if len(e.args) > 0 {
			ref.Args = map[string]any{}
			for _, a := range e.args {
				if a.isStr {
					ref.Args[a.key] = a.str
				} else {
					ref.Args[a.key] = a.num
				}
			}
		}
		want, err := json.Marshal(ref)
		require.NoError(t, err)
		require.Equal(t, string(want), string(e.appendJSON(nil)), "event %d", i)
	}
}
