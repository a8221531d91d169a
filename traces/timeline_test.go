package traces

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/portals3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func timelineRun(t *testing.T, opts actors.Options) []byte {
	t.Helper()
	file := filepath.Join(t.TempDir(), "timeline.json")
	c, err := New(Config{Sample: actors.MustParseProb("1"), Timeline: file})
	require.NoError(t, err)
	cfg := portals3.DefaultPerfConfig()
	cfg.Op, cfg.Sizes, cfg.Iters, cfg.Warmup = portals3.PerfPut, []int64{8, 4096}, 2, 1
	opts.Tracer = c.Tracer
	_, err = portals3.PortalPerf(context.Background(), cfg, opts)
	require.NoError(t, err)
	require.NoError(t, c.Close().Err)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	return b
}

// The timeline is the Chrome trace-event format: every event well formed, no two
// events overlapping on one track, every flow closed, counters for the queues, and
// the same bytes for 1 and 2 workers.
func TestTimeline(t *testing.T) {
	b := timelineRun(t, actors.Options{Engine: actors.Serial})
	assert.Equal(t, b, timelineRun(t, actors.Options{Workers: 2, Partitioner: actors.Block{}}), "timeline differs for 2 workers")
	var doc struct {
		Unit   string `json:"displayTimeUnit"`
		Events []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   json.Number    `json:"ts"`
			Dur  json.Number    `json:"dur"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			ID   int            `json:"id"`
			Args map[string]any `json:"args"`
			Bp   string         `json:"bp"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	assert.Equal(t, "ns", doc.Unit)
	procs, threads := map[int]string{}, map[[2]int]string{}
	spans := map[[2]int][][2]float64{}
	starts, finishes := map[int]int{}, map[int]int{}
	counters := map[string]bool{}
	for _, e := range doc.Events {
		switch e.Ph {
		case "M":
			name, _ := e.Args["name"].(string)
			require.NotEmpty(t, name, e.Name)
			if e.Name == "process_name" {
				procs[e.Pid] = name
			} else {
				threads[[2]int{e.Pid, e.Tid}] = name
			}
		case "X":
			ts, err1 := strconv.ParseFloat(string(e.Ts), 64)
			dur, err2 := strconv.ParseFloat(string(e.Dur), 64)
			require.NoError(t, err1)
			require.NoError(t, err2)
			require.GreaterOrEqual(t, dur, 0.0, e.Name)
			k := [2]int{e.Pid, e.Tid}
			require.Contains(t, threads, k, "%s: its track is named first", e.Name)
			spans[k] = append(spans[k], [2]float64{ts, ts + dur})
		case "s":
			starts[e.ID]++
		case "f":
			finishes[e.ID]++
			assert.Equal(t, "e", e.Bp)
		case "C":
			counters[e.Name] = true
		default:
			t.Fatalf("unexpected phase %q", e.Ph)
		}
	}
	assert.ElementsMatch(t, []string{"node[0,0,0]", "node[1,0,0]"}, slices.Collect(func(yield func(string) bool) {
		for _, p := range procs {
			if !yield(p) {
				return
			}
		}
	}))
	for k, iv := range spans {
		slices.SortFunc(iv, func(a, b [2]float64) int {
			if a[0] < b[0] {
				return -1
			}
			if a[0] > b[0] {
				return 1
			}
			return 0
		})
		for i := 1; i < len(iv); i++ {
			assert.LessOrEqual(t, iv[i-1][1], iv[i][0]+1e-9, "track %s overlaps", threads[k])
		}
	}
	assert.NotEmpty(t, starts)
	assert.Equal(t, starts, finishes, "every flow closed")
	for _, c := range []string{"ppc tx_pending", "txdma tx_fifo_commands", "rxdma rx_fifo_packets", "router.xp out_queue_packets", "host host_entries_pending"} {
		assert.True(t, counters[c], "counter track %s", c)
	}
}
