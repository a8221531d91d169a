package traces

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/portals3"
)

// The Jaeger integration test runs a real Jaeger v2 (in-memory storage, every endpoint
// on loopback) built by scripts/jaeger.sh. scripts/test builds it and sets
// SEASTAR_JAEGER to its path and SEASTAR_TEST_SUITE=1: there the test must run, and an
// unusable binary fails it. Run alone, without SEASTAR_JAEGER, it skips:
//
//	SEASTAR_JAEGER=$(scripts/jaeger.sh) go test -run Jaeger ./traces
func jaegerBinary(t *testing.T) string {
	bin := os.Getenv("SEASTAR_JAEGER")
	if bin == "" {
		if os.Getenv("SEASTAR_TEST_SUITE") != "" {
			t.Fatal("SEASTAR_JAEGER is not set: scripts/test must build Jaeger (scripts/jaeger.sh) and set it")
		}
		t.Skip("Jaeger integration test: set SEASTAR_JAEGER=$(scripts/jaeger.sh) to run it")
	}
	st, err := os.Stat(bin)
	require.NoError(t, err, "SEASTAR_JAEGER=%s", bin)
	require.False(t, st.IsDir(), "SEASTAR_JAEGER=%s is a directory", bin)
	return bin
}

// freePorts reserves n distinct free TCP ports on 127.0.0.1.
func freePorts(t *testing.T, n int) []int {
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		require.NoError(t, l.Close())
	}
	return ports
}

// jaeger is a running Jaeger.
type jaeger struct {
	query, otlpGRPC, otlpHTTP string // host:port
}

const jaegerConfig = `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:%[1]d
  jaeger_storage:
    backends:
      memory_store:
        memory:
          max_traces: 100000
  jaeger_query:
    storage:
      traces: memory_store
    enable_tracing: false
    max_clock_skew_adjust: 0s
    http:
      endpoint: 127.0.0.1:%[2]d
    grpc:
      endpoint: 127.0.0.1:%[3]d
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:%[4]d
      http:
        endpoint: 127.0.0.1:%[5]d
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memory_store
`

// startJaeger starts Jaeger with in-memory storage, every endpoint bound to loopback
// on free ports, waits until its query API answers and stops it at the end of the test.
func startJaeger(t *testing.T, bin string) *jaeger {
	p := freePorts(t, 5)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "jaeger.yaml")
	require.NoError(t, os.WriteFile(cfg, fmt.Appendf(nil, jaegerConfig, p[0], p[1], p[2], p[3], p[4]), 0o644))
	logf, err := os.Create(filepath.Join(dir, "jaeger.log"))
	require.NoError(t, err)
	cmd := exec.Command(bin, "--config", "file:"+cfg)
	cmd.Stdout, cmd.Stderr = logf, logf
	require.NoError(t, cmd.Start(), "starting %s", bin)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("jaeger log:\n%s", b)
		}
	})
	j := &jaeger{query: fmt.Sprintf("127.0.0.1:%d", p[1]), otlpGRPC: fmt.Sprintf("127.0.0.1:%d", p[3]),
		otlpHTTP: fmt.Sprintf("127.0.0.1:%d", p[4])}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("jaeger exited at start (%v):\n%s", err, b)
		default:
		}
		resp, err := http.Get("http://" + j.query + "/api/services")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return j
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("jaeger did not answer on %s within 60 s", j.query)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (j *jaeger) get(t *testing.T, path string, q url.Values, into any) int {
	t.Helper()
	resp, err := http.Get("http://" + j.query + path + "?" + q.Encode())
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if resp.StatusCode == http.StatusOK {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber() // exact integers
		require.NoError(t, dec.Decode(into), "%s: %s", path, b)
	}
	return resp.StatusCode
}

// v1 API (/api/traces).
type v1Trace struct {
	TraceID   string   `json:"traceID"`
	Spans     []v1Span `json:"spans"`
	Processes map[string]struct {
		ServiceName string `json:"serviceName"`
	} `json:"processes"`
}

type v1Span struct {
	TraceID    string `json:"traceID"`
	SpanID     string `json:"spanID"`
	Operation  string `json:"operationName"`
	References []struct {
		RefType string `json:"refType"`
		TraceID string `json:"traceID"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	ProcessID string `json:"processID"`
	StartTime int64  `json:"startTime"` // microseconds since the Unix epoch
	Duration  int64  `json:"duration"`
	Tags      []struct {
		Key   string `json:"key"`
		Type  string `json:"type"`
		Value any    `json:"value"`
	} `json:"tags"`
}

// num renders a JSON number (float64 or json.Number) exactly, as an integer when it is one.
func num(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func (s *v1Span) tag(k string) any {
	for _, tg := range s.Tags {
		if tg.Key == k {
			return tg.Value
		}
	}
	return nil
}

// v3 API (/api/v3/traces): OTLP JSON.
type v3Result struct {
	Result struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []v3Attr `json:"attributes"`
			} `json:"resource"`
			ScopeSpans []struct {
				Spans []v3Span `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	} `json:"result"`
}

type v3Attr struct {
	Key   string `json:"key"`
	Value struct {
		Str *string `json:"stringValue"`
		Int *string `json:"intValue"`
	} `json:"value"`
}

type v3Span struct {
	TraceID string   `json:"traceId"`
	SpanID  string   `json:"spanId"`
	Parent  string   `json:"parentSpanId"`
	Name    string   `json:"name"`
	Start   string   `json:"startTimeUnixNano"`
	End     string   `json:"endTimeUnixNano"`
	Attrs   []v3Attr `json:"attributes"`
}

func (s *v3Span) attr(k string) string {
	for _, a := range s.Attrs {
		if a.Key == k {
			if a.Value.Str != nil {
				return *a.Value.Str
			}
			if a.Value.Int != nil {
				return *a.Value.Int
			}
		}
	}
	return ""
}

func (r *v3Result) spans() []v3Span {
	var out []v3Span
	for _, rs := range r.Result.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			out = append(out, ss.Spans...)
		}
	}
	return out
}

// idHex normalizes an id of Jaeger's OTLP JSON (hex).
func idHex(s string) string { return strings.ToLower(s) }

// docs/design.md s.7: traces exported over OTLP (gRPC and HTTP) reach a real Jaeger whole: one
// trace per sampled message, the root and its children, the stage names, simulated
// timestamps on the epoch in causal order, and the attributes, as the trace file has
// them; queried through /api/traces with an explicit window and through /api/v3.
func TestJaeger(t *testing.T) {
	bin := jaegerBinary(t)
	j := startJaeger(t, bin)
	epoch := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	type run struct {
		endpoint string
		seed     uint64
		op       portals3.PerfOp
	}
	runs := []run{{j.otlpGRPC, 1, portals3.PerfPut}, {"http://" + j.otlpHTTP, 2, portals3.PerfGet}}
	const scale = 1000          // --trace-time-scale's default: a simulated ns is an exported us
	want := map[string][]span{} // trace id -> spans, from the trace files
	for _, r := range runs {
		file := filepath.Join(t.TempDir(), "trace.jsonl")
		c, err := New(Config{Sample: actors.MustParseProb("0.5"), File: file, OTLP: r.endpoint, Epoch: epoch, Seed: r.seed,
			Service: "seastar-sim-test", ExportTimeout: 20 * time.Second, TimeScale: scale})
		require.NoError(t, err)
		cfg := portals3.DefaultPerfConfig()
		cfg.Op, cfg.Sizes, cfg.Iters, cfg.Warmup = r.op, []int64{0, 8192}, 3, 1
		_, err = portals3.PortalPerf(context.Background(), cfg, actors.Options{Seed: r.seed, Engine: actors.Parallel, Workers: 2, Tracer: c.Tracer})
		require.NoError(t, err)
		st := c.Close()
		require.NoError(t, st.Err, "export to %s", r.endpoint)
		assert.Zero(t, st.Dropped)
		assert.Equal(t, st.Spans, st.Exported, "every span exported to %s", r.endpoint)
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		for id, spans := range parse(t, b) {
			want[id] = spans
		}
	}
	require.NotEmpty(t, want)

	// /api/traces with an explicit window (microseconds): every trace, whole, found
	// through the service of either node (a service per simulated node).
	services := []string{"node[0,0,0]", "node[1,0,0]"}
	var got map[string]v1Trace
	deadline := time.Now().Add(30 * time.Second)
	for {
		got = map[string]v1Trace{}
		code := http.StatusOK
		for _, svc := range services {
			q := url.Values{"service": {svc}, "start": {strconv.FormatInt(epoch.UnixMicro(), 10)},
				"end": {strconv.FormatInt(epoch.Add(time.Hour).UnixMicro(), 10)}, "limit": {"100000"}}
			var resp struct {
				Data []v1Trace `json:"data"`
			}
			if c := j.get(t, "/api/traces", q, &resp); c != http.StatusOK {
				code = c
			}
			for _, tr := range resp.Data {
				got[tr.TraceID] = tr
			}
		}
		n := 0
		for _, tr := range got {
			n += len(tr.Spans)
		}
		total := 0
		for _, s := range want {
			total += len(s)
		}
		if code == http.StatusOK && len(got) == len(want) && n == total {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/api/traces: %d traces, %d spans after 30 s; want %d traces, %d spans (status %d)", len(got), n, len(want), total, code)
		}
		time.Sleep(200 * time.Millisecond)
	}
	kinds := map[string]bool{}
	subUS, depth3, links := false, false, 0
	for id, spans := range want {
		tr, ok := got[id]
		require.True(t, ok, "trace %s is in Jaeger", id)
		byID := map[string]v1Span{}
		for _, s := range tr.Spans {
			byID[s.SpanID] = s
		}
		root := spans[0]
		kinds[root.Name] = true
		for _, ws := range spans {
			s, ok := byID[ws.SpanID]
			require.True(t, ok, "trace %s: span %s %s is in Jaeger", id, ws.SpanID, ws.Name)
			assert.Equal(t, ws.Name, s.Operation)
			assert.Equal(t, epoch.UnixMicro()+ws.StartPS*scale/1_000_000, s.StartTime, "%s: start = epoch + scaled simulated time", ws.Name)
			if ws.EndPS-ws.StartPS >= 2000 { // 2 ns or more: at least 2 us shown
				assert.Positive(t, s.Duration, "%s: a stage of %d ps reads non-zero in Jaeger", ws.Name, ws.EndPS-ws.StartPS)
				subUS = subUS || ws.EndPS-ws.StartPS < 1_000_000
			}
			assert.Equal(t, strconv.FormatInt(ws.StartPS, 10), num(s.tag("sim.start_ps")), "%s: exact picoseconds", ws.Name)
			assert.Equal(t, strconv.FormatInt(ws.EndPS, 10), num(s.tag("sim.end_ps")))
			wantService := nodeOf(ws.Actor) // a service per node; the network phase has none: the run's
			if wantService == "" {
				wantService = "seastar-sim-test"
			} else {
				assert.Equal(t, ws.Actor, s.tag("actor"))
			}
			assert.Equal(t, wantService, ws.Service, "%s: the file names the node's service", ws.Name)
			assert.Equal(t, ws.Service, tr.Processes[s.ProcessID].ServiceName, "%s: the service is the span's node", ws.Name)
			if ws.Parent == "" {
				if cause, ok := ws.Attrs["cause.message.id"]; ok { // a reply: linked to its get's root
					require.Len(t, s.References, 1, "%s: one link, no parent", ws.Name)
					assert.Equal(t, "FOLLOWS_FROM", s.References[0].RefType)
					assert.Equal(t, fmt.Sprint(cause), s.tag("cause.message.id"))
					links++
				} else {
					assert.Empty(t, s.References, "the root has no parent")
				}
				assert.Equal(t, ws.Attrs["portals.match_bits"], s.tag("portals.match_bits"))
				assert.Equal(t, num(ws.Attrs["size_bytes"]), num(s.tag("size_bytes")))
				assert.Equal(t, ws.Attrs["message.id"], s.tag("message.id"))
				continue
			}
			require.Len(t, s.References, 1, ws.Name)
			assert.Equal(t, "CHILD_OF", s.References[0].RefType)
			assert.Equal(t, ws.Parent, s.References[0].SpanID, "%s: its parent as in the file", ws.Name)
			if strings.HasPrefix(ws.Name, "phase/") {
				assert.Equal(t, root.SpanID, ws.Parent, "%s is a child of the root", ws.Name)
			} else {
				p, ok := byID[ws.Parent]
				require.True(t, ok, "%s: its phase is in Jaeger", ws.Name)
				assert.True(t, strings.HasPrefix(p.Operation, "phase/"), "%s is a child of a phase (depth 3)", ws.Name)
				depth3 = true
			}
			assert.GreaterOrEqual(t, s.StartTime, byID[root.SpanID].StartTime, "%s starts inside the root", ws.Name)
			if ws.Name == "router/hop" {
				assert.Equal(t, num(ws.Attrs["hops"]), num(s.tag("hops")))
			}
		}
	}
	assert.Equal(t, map[string]bool{"portals/put": true, "portals/get": true, "portals/reply": true}, kinds)
	assert.True(t, subUS, "a sub-microsecond stage shows a non-zero duration")
	assert.True(t, depth3, "root, phase, stage: three levels")
	assert.Positive(t, links, "a reply's root links to its get's")

	// /api/v3/traces: the same traces, with OTLP attributes.
	ids := map[string]bool{}
	for _, svc := range services {
		var found v3Result
		code := j.get(t, "/api/v3/traces", url.Values{"query.service_name": {svc},
			"query.start_time_min": {epoch.Add(-time.Second).Format(time.RFC3339Nano)},
			"query.start_time_max": {epoch.Add(time.Hour).Format(time.RFC3339Nano)}, "query.num_traces": {"100000"}}, &found)
		require.Equal(t, http.StatusOK, code)
		for _, s := range found.spans() {
			ids[idHex(s.TraceID)] = true
		}
	}
	wantIDs := make([]string, 0, len(want))
	for id := range want {
		wantIDs = append(wantIDs, id)
	}
	gotIDs := make([]string, 0, len(ids))
	for id := range ids {
		gotIDs = append(gotIDs, id)
	}
	slices.Sort(wantIDs)
	slices.Sort(gotIDs)
	assert.Equal(t, wantIDs, gotIDs)

	// /api/v3/traces/{id}: one put trace, stage by stage, in causal order.
	var id string
	for _, k := range wantIDs {
		if want[k][0].Name == "portals/put" && want[k][0].Attrs["size_bytes"] == float64(8192) {
			id = k
			break
		}
	}
	require.NotEmpty(t, id, "a sampled 8 KB put")
	var one v3Result
	require.Equal(t, http.StatusOK, j.get(t, "/api/v3/traces/"+id, url.Values{}, &one))
	spans := one.spans()
	require.Len(t, spans, len(want[id]))
	slices.SortFunc(spans, func(a, b v3Span) int { // by start; at equal starts, the root (no parent) first
		x, _ := strconv.ParseInt(a.attr("sim.start_ps"), 10, 64)
		y, _ := strconv.ParseInt(b.attr("sim.start_ps"), 10, 64)
		child := func(s v3Span) int {
			if s.Parent == "" {
				return 0
			}
			return 1
		}
		return cmp.Or(cmp.Compare(x, y), cmp.Compare(child(a), child(b)))
	})
	var names []string
	for _, s := range spans {
		if !slices.Contains(names, s.Name) {
			names = append(names, s.Name)
		}
		start, _ := strconv.ParseInt(s.Start, 10, 64)
		end, _ := strconv.ParseInt(s.End, 10, 64)
		assert.LessOrEqual(t, start, end, s.Name)
		ps, _ := strconv.ParseInt(s.attr("sim.start_ps"), 10, 64)
		assert.Equal(t, epoch.UnixNano()+ps*scale/1000, start, "%s: start = epoch + scaled simulated time (ns)", s.Name)
	}
	assert.Equal(t, "portals/put", names[0], "the root starts first")
	order := []string{"host/ptl_put", "host/send", "ppc/tx_command", "txdma/message", "router/hop", "rxdma/message",
		"ppc/rx_header", "host/match", "ppc/rx_command", "ppc/rx_done", "host/rx_done"}
	pos := func(n string) int { return slices.Index(names, n) }
	for i := 1; i < len(order); i++ {
		assert.Less(t, pos(order[i-1]), pos(order[i]), "%s before %s in %v", order[i-1], order[i], names)
	}
	for _, s := range spans {
		if s.Name == "portals/put" {
			assert.Empty(t, s.Parent)
			assert.Equal(t, "0x1", s.attr("portals.match_bits"))
			assert.Equal(t, "8192", s.attr("size_bytes"))
		}
	}
}
