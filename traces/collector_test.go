package traces

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/cci"
	"github.com/seastar-sim/seastar/protocols/portals3"
)

// perfRun runs a short PortalPerf with tracing into a file and returns the file's
// bytes, the collector's statistics and the run's digest.
func perfRun(t *testing.T, op portals3.PerfOp, sizes []int64, sample string, opts actors.Options) ([]byte, Stats, string) {
	t.Helper()
	return perfRunMode(t, "generic", op, sizes, sample, opts)
}

// perfRunMode is perfRun with the Portals mode (generic or accelerated).
func perfRunMode(t *testing.T, mode string, op portals3.PerfOp, sizes []int64, sample string, opts actors.Options) ([]byte, Stats, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	c, err := New(Config{Sample: actors.MustParseProb(sample), File: file, Seed: opts.Seed})
	require.NoError(t, err)
	cfg := portals3.DefaultPerfConfig()
	cfg.Op, cfg.Sizes, cfg.Iters, cfg.Warmup = op, sizes, 3, 1
	cfg.Portals.Mode = mode
	opts.Tracer = c.Tracer
	res, err := portals3.PortalPerf(context.Background(), cfg, opts)
	require.NoError(t, err)
	st := c.Close()
	require.NoError(t, st.Err)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	return b, st, res.Report.Digest
}

// span is a line of the trace file.
type span struct {
	TraceID string         `json:"trace_id"`
	SpanID  string         `json:"span_id"`
	Parent  string         `json:"parent_span_id"`
	Name    string         `json:"name"`
	StartPS int64          `json:"start_ps"`
	EndPS   int64          `json:"end_ps"`
	Actor   string         `json:"actor"`
	Service string         `json:"service"`
	Attrs   map[string]any `json:"attrs"`
}

func parse(t *testing.T, b []byte) map[string][]span {
	t.Helper()
	traces := map[string][]span{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s span
		require.NoError(t, json.Unmarshal(sc.Bytes(), &s), "line %q", sc.Text())
		traces[s.TraceID] = append(traces[s.TraceID], s)
	}
	require.NoError(t, sc.Err())
	return traces
}

// The trace file is byte-identical for the serial engine and the parallel engine on 1
// and 2 workers, whatever the partitioning: spans, ids and order depend only on the
// simulation.
func TestTraceFileIdenticalAcrossWorkers(t *testing.T) {
	sizes := []int64{0, 4096}
	ref, st, _ := perfRun(t, portals3.PerfPut, sizes, "1", actors.Options{Engine: actors.Serial})
	require.Positive(t, st.Traces)
	for _, o := range []actors.Options{
		{Engine: actors.Parallel, Workers: 1},
		{Engine: actors.Parallel, Workers: 2, Partitioner: actors.Node{}},
		{Engine: actors.Parallel, Workers: 2, Partitioner: actors.Block{}},
	} {
		got, st2, _ := perfRun(t, portals3.PerfPut, sizes, "1", o)
		assert.Equal(t, st.Spans, st2.Spans)
		assert.True(t, bytes.Equal(ref, got), "workers %d %T: trace file differs", o.Workers, o.Partitioner)
	}
}

// Tracing does not change the simulation: same digest with tracing on and off.
func TestTracingDoesNotChangeTheRun(t *testing.T) {
	_, _, on := perfRun(t, portals3.PerfPut, []int64{0, 2048}, "1", actors.Options{Engine: actors.Serial})
	cfg := portals3.DefaultPerfConfig()
	cfg.Op, cfg.Sizes, cfg.Iters, cfg.Warmup = portals3.PerfPut, []int64{0, 2048}, 3, 1
	res, err := portals3.PortalPerf(context.Background(), cfg, actors.Options{Engine: actors.Serial})
	require.NoError(t, err)
	assert.Equal(t, res.Report.Digest, on)
}

// docs/design.md s.7: one trace per message, a root span named after the Portals operation with
// the message's attributes, child spans for every stage from the library call to the
// completion, in causal order of simulated time, all inside the root.
func TestPutTraceStructure(t *testing.T) {
	b, st, _ := perfRun(t, portals3.PerfPut, []int64{1024}, "1", actors.Options{Engine: actors.Serial})
	traces := parse(t, b)
	// 1 warm-up + 3 timed ping-pongs: 8 puts, no acks.
	assert.Len(t, traces, 8)
	assert.Equal(t, int64(8), st.Traces)
	for id, spans := range traces {
		root := spans[0]
		assert.Empty(t, root.Parent, "trace %s: the first line is the root", id)
		assert.Equal(t, "portals/put", root.Name)
		assert.Equal(t, "put", root.Attrs["portals.kind"])
		assert.EqualValues(t, 1024, root.Attrs["size_bytes"])
		assert.Equal(t, "0x1", root.Attrs["portals.match_bits"])
		assert.Equal(t, id[16:], fmtHex16(root.Attrs["message.id"]), "the message id ends the trace id")
		first := map[string]span{}
		count := map[string]int{}
		phases, stages := nest(t, root, spans[1:])
		var names []string
		for _, p := range phases {
			names = append(names, p.Name)
		}
		assert.ElementsMatch(t, []string{"phase/initiator host", "phase/initiator NIC", "phase/network", "phase/target NIC",
			"phase/target host", "phase/completion"}, names, "trace %s", id)
		byID := map[string]string{}
		for _, p := range phases {
			byID[p.SpanID] = p.Name
		}
		for _, s := range stages {
			if s.Name == "ppc/tx_done" || s.Name == "host/tx_done" {
				assert.Equal(t, "phase/completion", byID[s.Parent], "%s completes the send", s.Name)
			}
		}
		for _, s := range stages {
			assert.GreaterOrEqual(t, s.StartPS, root.StartPS, s.Name)
			assert.LessOrEqual(t, s.EndPS, root.EndPS, s.Name)
			assert.LessOrEqual(t, s.StartPS, s.EndPS, s.Name)
			if _, ok := first[s.Name]; !ok {
				first[s.Name] = s
			}
			count[s.Name]++
		}
		// 1 KB: a header packet and 16 payload packets + CRC; head and tail packets
		// each cross the two routers of the 2-node line.
		assert.Equal(t, 4, count["router/hop"], "trace %s", id)
		order := []string{"host/ptl_put", "host/send", "ht/write", "ppc/mailbox", "ppc/tx_command", "txdma/message",
			"router/hop", "rxdma/message", "ppc/rx_header", "host/interrupt", "host/match", "ppc/rx_command",
			"ppc/rx_done", "host/rx_done"}
		for i, name := range order {
			require.Contains(t, first, name, "trace %s has no %s span", id, name)
			if i > 0 {
				assert.LessOrEqual(t, first[order[i-1]].StartPS, first[name].StartPS, "%s starts before %s", order[i-1], name)
			}
		}
		assert.Contains(t, first, "ppc/tx_done")
		assert.Contains(t, first, "host/tx_done")
		src, dst := first["ppc/tx_command"].Actor, first["ppc/rx_header"].Actor
		assert.NotEqual(t, src, dst)
		hop := first["router/hop"]
		assert.EqualValues(t, 0, hop.Attrs["hops"], "the first hop span is the source router's")
		assert.Equal(t, nodeOf(src)+".router."+map[string]string{"node[0,0,0]": "xp", "node[1,0,0]": "xm"}[nodeOf(src)], hop.Actor)
		var last span
		for _, s := range spans {
			if s.Name == "router/hop" && s.Actor == nodeOf(dst)+".router.nic" {
				last = s
			}
		}
		assert.EqualValues(t, 1, last.Attrs["hops"], "the destination router ejects after one hop")
	}
}

// In accelerated mode the library writes the transmit command straight to the process's
// mailbox and the firmware matches: a put's trace has the library call, the mailbox
// command and its firmware handler, the hardware stages and the firmware's matching
// (ppc/rx_header), and no interrupt or host matching.
func TestAcceleratedPutTraceStructure(t *testing.T) {
	b, st, _ := perfRunMode(t, "accelerated", portals3.PerfPut, []int64{1024}, "1", actors.Options{Engine: actors.Serial})
	traces := parse(t, b)
	assert.Len(t, traces, 8)
	assert.Equal(t, int64(8), st.Traces)
	for id, spans := range traces {
		root := spans[0]
		assert.Equal(t, "portals/put", root.Name, "trace %s", id)
		assert.EqualValues(t, 1024, root.Attrs["size_bytes"])
		first := map[string]span{}
		_, stages := nest(t, root, spans[1:])
		for _, s := range stages {
			assert.LessOrEqual(t, s.StartPS, s.EndPS, s.Name)
			if _, ok := first[s.Name]; !ok {
				first[s.Name] = s
			}
		}
		order := []string{"host/ptl_put", "host/send", "ppc/mailbox", "ppc/accel_tx", "txdma/message", "router/hop",
			"rxdma/message", "ppc/rx_header", "ppc/rx_done"}
		for i, name := range order {
			require.Contains(t, first, name, "trace %s has no %s span", id, name)
			if i > 0 {
				assert.LessOrEqual(t, first[order[i-1]].StartPS, first[name].StartPS, "%s starts before %s", order[i-1], name)
			}
		}
		assert.Equal(t, "accel_tx", first["ppc/mailbox"].Attrs["command"])
		for _, name := range []string{"host/interrupt", "host/match", "ppc/tx_command"} {
			assert.NotContains(t, first, name, "trace %s: no %s in accelerated mode", id, name)
		}
	}
}

func fmtHex16(v any) string {
	var id uint64
	s, _ := v.(string)
	for _, c := range s {
		id = id*10 + uint64(c-'0')
	}
	const digits = "0123456789abcdef"
	out := make([]byte, 16)
	for i := 15; i >= 0; i-- {
		out[i] = digits[id&15]
		id >>= 4
	}
	return string(out)
}

// Sampling is by message id: exactly the sampled ids are traced, each trace whole.
func TestSamplingByMessageID(t *testing.T) {
	b, st, _ := perfRun(t, portals3.PerfGet, []int64{0, 64, 8192}, "0.4", actors.Options{Engine: actors.Parallel, Workers: 2})
	traces := parse(t, b)
	s := NewSampler(actors.MustParseProb("0.4"))
	all, _, _ := perfRun(t, portals3.PerfGet, []int64{0, 64, 8192}, "1", actors.Options{Engine: actors.Serial})
	full := parse(t, all)
	var want []string
	for id, spans := range full {
		var m uint64
		for _, c := range id[16:] {
			m = m*16 + uint64(hexVal(c))
		}
		if s.Sampled(m) {
			want = append(want, id)
			assert.Equal(t, spans, traces[id], "a sampled trace is whole")
		}
	}
	got := make([]string, 0, len(traces))
	for id := range traces {
		got = append(got, id)
	}
	slices.Sort(want)
	slices.Sort(got)
	assert.Equal(t, want, got)
	assert.Less(t, len(got), len(full))
	assert.Positive(t, len(got))
	assert.Equal(t, int64(len(got)), st.Traces)
	kinds := map[string]bool{}
	for _, spans := range full {
		kinds[spans[0].Name] = true
	}
	assert.Equal(t, map[string]bool{"portals/get": true, "portals/reply": true}, kinds)
}

func hexVal(c rune) int {
	if c >= 'a' {
		return int(c-'a') + 10
	}
	return int(c - '0')
}

func TestSampler(t *testing.T) {
	for _, ratio := range []float64{0, 0.01, 0.25, 0.5, 1} {
		s := NewSampler(actors.MustParseProb(fmt.Sprint(ratio)))
		n := 0
		for i := range uint64(100000) {
			if s.Sampled(uint64(1)<<40 | (i + 1)) {
				n++
			}
		}
		assert.InDelta(t, ratio*100000, float64(n), 1000, "ratio %v", ratio)
	}
	assert.False(t, NewSampler(actors.MustParseProb("1")).Sampled(0), "id 0 is no message")
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{{OTLP: "ftp://x:1"}, {OTLP: "grpc://nohost"}, {MaxFileSpans: -1}, {ExportTimeout: -1}} {
		assert.Error(t, c.Validate(), "%+v", c)
	}
	for _, ep := range []string{"localhost:4317", "grpc://127.0.0.1:4317", "grpcs://collector:4317", "http://127.0.0.1:4318", "https://x/v1/traces"} {
		assert.NoError(t, Config{OTLP: ep}.Validate(), ep)
	}
	_, err := New(Config{File: filepath.Join(t.TempDir(), "no", "such", "dir", "f")})
	assert.ErrorContains(t, err, "trace file")
	_, err = New(Config{Timeline: filepath.Join(t.TempDir(), "no", "such", "dir", "f")})
	assert.ErrorContains(t, err, "timeline")
}

// The file holds at most MaxFileSpans stages; the rest are counted as dropped.
func TestFileBoundCountsDrops(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.jsonl")
	c, err := New(Config{Sample: actors.MustParseProb("1"), File: file, MaxFileSpans: 5})
	require.NoError(t, err)
	tr := c.Tracer(0)
	for i := range 20 {
		tr.Span(actors.Span{Trace: 7, Name: "x/y", Start: actors.Time(i), End: actors.Time(i + 1)})
	}
	st := c.Close()
	require.NoError(t, st.Err)
	assert.Equal(t, int64(22), st.Spans, "20 stages, and the root and the phase made for them")
	assert.Equal(t, int64(15), st.Dropped)
	assert.Equal(t, int64(7), st.Written, "5 stages, the root and the phase")
}

// failing is an exporter whose every export fails.
type failing struct{ calls int }

func (f *failing) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error {
	f.calls++
	return errors.New("connection refused")
}

func (f *failing) Shutdown(context.Context) error { return nil }

// An endpoint that refuses spans is never silent: every span is counted as dropped and
// the error is reported; after Retries consecutive failures the exporter stops trying.
func TestExportFailuresAreCounted(t *testing.T) {
	f := &failing{}
	c, err := New(Config{Sample: actors.MustParseProb("1"), exporter: f, Retries: 2})
	require.NoError(t, err)
	tr := c.Tracer(0)
	for i := range 3000 {
		tr.Span(actors.Span{Trace: uint64(i/10 + 1), Name: "x/y", Start: actors.Time(i), End: actors.Time(i + 5)})
	}
	st := c.Close()
	assert.Equal(t, int64(300), st.Traces)
	assert.Equal(t, int64(3600), st.Spans, "3000 stages and the 300 roots and 300 phases made for them")
	assert.Zero(t, st.Exported)
	assert.Equal(t, int64(3600), st.Dropped, "3000 stages, 300 roots and 300 phases")
	assert.ErrorContains(t, st.Err, "connection refused")
	assert.Equal(t, 2, f.calls, "gave up after 2 failed exports")
	assert.Contains(t, st.String(), "3600 dropped")
}

// A span whose end precedes its start is clamped: end >= start always.
func TestSpanEndNeverBeforeStart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.jsonl")
	c, err := New(Config{Sample: actors.MustParseProb("1"), File: file})
	require.NoError(t, err)
	c.Tracer(0).Span(actors.Span{Trace: 1, Name: "x/y", Start: 10, End: 5})
	require.NoError(t, c.Close().Err)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	for _, spans := range parse(t, b) {
		for _, s := range spans {
			assert.Equal(t, int64(10), s.EndPS)
		}
	}
}

// cciRun runs a short CCI ping-pong (RU, 1 KB) with every message traced into a file.
func cciRun(t *testing.T, opts actors.Options) []byte {
	t.Helper()
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	c, err := New(Config{Sample: actors.MustParseProb("1"), File: file})
	require.NoError(t, err)
	cfg := cci.DefaultBenchConfig()
	cfg.Attr, cfg.Size, cfg.Iters, cfg.Warmup = cci.RU, 1024, 2, 1
	opts.Tracer = c.Tracer
	_, err = cci.PingPong(context.Background(), cfg, opts)
	require.NoError(t, err)
	st := c.Close()
	require.NoError(t, st.Err)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	return b
}

// CCI messages are traced too: a message on a reliable connection has the firmware's
// root span cci/msg-rel, the command's wait and handler, the hardware stages, the
// receiving firmware's header handler, the completion entry's write into host memory
// and the library's processing; the NIC's ack is a trace of its own (cci/ack), built by
// the receiving firmware and sent with PIO. Identical for 1 and 2 workers.
func TestCCITraceStructure(t *testing.T) {
	b := cciRun(t, actors.Options{Engine: actors.Serial})
	assert.Equal(t, b, cciRun(t, actors.Options{Workers: 2}), "trace file differs for 2 workers")
	kinds := map[string]int{}
	for id, spans := range parse(t, b) {
		root := spans[0]
		require.Empty(t, root.Parent, "trace %s: the first line is the root", id)
		kinds[root.Name]++
		first := map[string]span{}
		_, stages := nest(t, root, spans[1:])
		for _, s := range stages {
			assert.LessOrEqual(t, s.StartPS, s.EndPS, s.Name)
			if _, ok := first[s.Name]; !ok {
				first[s.Name] = s
			}
		}
		var order []string
		switch root.Name {
		case "cci/msg-rel":
			assert.EqualValues(t, 1024, root.Attrs["size_bytes"])
			order = []string{"ppc/mailbox", "ppc/cci_command", "txdma/message", "router/hop", "rxdma/message",
				"ppc/rx_header", "ht/write", "host/cci_recv"}
		case "cci/ack":
			order = []string{"ppc/cci_answer", "txdma/message", "router/hop", "ppc/rx_header"}
			assert.Equal(t, "pio", first["txdma/message"].Attrs["path"], "trace %s: acks go with PIO", id)
		}
		for i, name := range order {
			require.Contains(t, first, name, "trace %s (%s) has no %s span", id, root.Name, name)
			if i > 0 {
				assert.LessOrEqual(t, first[order[i-1]].StartPS, first[name].StartPS, "%s starts before %s", order[i-1], name)
			}
		}
	}
	// 3 round trips of 2 messages, each acked; the connection's request and reply.
	assert.Equal(t, 6, kinds["cci/msg-rel"])
	assert.Equal(t, 6+2, kinds["cci/ack"])
	assert.Equal(t, 1, kinds["cci/conn-req"])
}

// nest splits the spans of a trace after its root into phases and stages and checks
// the nesting: every phase is a child of the root, every stage a child of a phase.
func nest(t *testing.T, root span, rest []span) (phases, stages []span) {
	t.Helper()
	ids := map[string]bool{}
	for _, s := range rest {
		if strings.HasPrefix(s.Name, "phase/") {
			phases = append(phases, s)
			ids[s.SpanID] = true
			assert.Equal(t, root.SpanID, s.Parent, "%s is a child of the root", s.Name)
			continue
		}
		stages = append(stages, s)
	}
	for _, s := range stages {
		assert.True(t, ids[s.Parent], "%s is a child of a phase", s.Name)
	}
	assert.NotEmpty(t, phases)
	return phases, stages
}

// A get's reply is a trace of its own whose root names the get it answers
// (cause.message.id), which exporters turn into a link.
func TestReplyLinksToItsGet(t *testing.T) {
	b, _, _ := perfRun(t, portals3.PerfGet, []int64{64}, "1", actors.Options{Engine: actors.Serial})
	gets := map[string]bool{}
	var causes []string
	for _, spans := range parse(t, b) {
		root := spans[0]
		switch root.Name {
		case "portals/get":
			gets[fmt.Sprint(root.Attrs["message.id"])] = true
		case "portals/reply":
			causes = append(causes, fmt.Sprint(root.Attrs["cause.message.id"]))
		}
	}
	require.NotEmpty(t, causes)
	for _, c := range causes {
		assert.True(t, gets[c], "reply caused by get %s, which is traced", c)
	}
}
