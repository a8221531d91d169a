package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run validate computes every item; the visible calibration targets hold within 5%
// (docs/design.md section 6), Portals 3.3 and StarT-JR; --format csv is the common results
// schema.
func TestValidate(t *testing.T) {
	code, out, errs := invoke(t, "validate", "--format", "json", "--out", "none", "--quiet")
	require.Equal(t, 0, code, errs)
	var v struct {
		Rows []map[string]any `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	require.GreaterOrEqual(t, len(v.Rows), 15)
	targets := 0
	for _, r := range v.Rows {
		m, ok := r["model"].(float64)
		require.True(t, ok, "%v", r)
		assert.False(t, math.IsNaN(m) || math.IsInf(m, 0), "%v", r)
		assert.NotEmpty(t, r["source"])
		if ratio, ok := r["ratio"].(float64); ok {
			targets++
			assert.InDelta(t, 1, ratio, 0.05, "%s: model %v, target %v", r["item"], r["model"], r["target"])
		}
	}
	assert.Equal(t, 3+3*4+1, targets, "the three visible Portals 3.3 targets, the StarT-JR calibration rows (four figures each) and the shared-memory read")
	model := func(item string) float64 {
		for _, r := range v.Rows {
			if r["item"] == item {
				return r["model"].(float64)
			}
		}
		t.Fatalf("no row %q", item)
		return 0
	}
	// Pedretti & Hudson 2005 s.5.1: "After the switch, there is more firmware processing
	// performed per message, which increases the overall advantage of caching."
	assert.Greater(t, model("PPC caches off: MPI latency increase, 16 B (past the very small message path)"),
		model("PPC caches off: MPI latency increase, 0 B"))
	assert.Greater(t, model("very small message saving: MPI latency, 8 B"), 0.0, "s.5.2: the optimization saves time")
	assert.Greater(t, model("write-through saving per message: MPI latency, 0 B"), 0.0, "s.5.3: a net saving per message")
	assert.Greater(t, model("PPC work per 0 B put, both NICs: instructions"), 0.0)
	// The handler times come from the firmware's trace ring: a message's new-message
	// handler does more than its transmit command (source, pending, header copy and
	// event, against queueing a pending).
	assert.Greater(t, model("firmware handler time: new message, generic, 0 B put"),
		model("firmware handler time: transmit command, generic, 0 B put"))
	assert.Greater(t, model("firmware handler time: RX completion, generic, 13 B put (Figure 2: rx_complete 286-660 ns)"), 0.0)

	code, out, errs = invoke(t, "validate", "--format", "csv", "--out", "none", "--quiet")
	require.Equal(t, 0, code, errs)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, []string{"point", "row", "item", "source", "unit", "metric", "value"}, recs[0])
}
