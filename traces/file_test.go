package traces

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
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
