package traces

import (
	"bytes"
	"io"
	"testing"
)

// A trace file from anywhere (truncated, edited, another tool's) reads as messages or
// as an error naming the line, never a panic; what reads also draws.
func FuzzReadFile(f *testing.F) {
	f.Add([]byte(`{"trace_id":"a0","span_id":"01","name":"portals/put","start_ps":0,"end_ps":10,"actor":"node[0,0,0].host","attrs":{"message.id":"1"}}` + "\n" +
		`{"trace_id":"a0","span_id":"02","parent_span_id":"01","name":"host/send","start_ps":2,"end_ps":5,"actor":"node[0,0,0].host","attrs":{"message.id":"1"}}` + "\n"))
	f.Add([]byte("{}\n"))
	f.Add([]byte(`{"name":"x","start_ps":5,"end_ps":1}`))
	f.Add([]byte("not json"))
	f.Fuzz(func(t *testing.T, b []byte) {
		msgs, err := ReadFile(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, m := range msgs {
			if err := Waterfall(io.Discard, m, 40); err != nil {
				return
			}
		}
	})
}
