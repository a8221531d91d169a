package results

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seastar-sim/seastar/params"
)

// The statistics of a hand-computed case: 1, 2, 3, 4.
func TestSummarize(t *testing.T) {
	st := summarize([]float64{1, 2, 3, 4})
	assert.Equal(t, 4, st.n)
	assert.InDelta(t, 2.5, st.mean, 1e-12)
	assert.InDelta(t, math.Sqrt(5.0/3), st.sd, 1e-12) // sum of squares 5, n-1 = 3
	half := 3.182 * math.Sqrt(5.0/3) / 2              // t(0.975, 3) * sd / sqrt(4)
	assert.InDelta(t, 2.5-half, st.lo, 1e-12)
	assert.InDelta(t, 2.5+half, st.hi, 1e-12)
	one := summarize([]float64{7})
	assert.Equal(t, 7.0, one.mean)
	assert.True(t, math.IsNaN(one.sd) && math.IsNaN(one.lo), "no spread from one value")
	assert.InDelta(t, 1.96, t975(100000), 1e-3)
	assert.InDelta(t, 2.0395, t975(31), 1e-3)
}

// The schema round trip: the files WriteFiles writes read back (ReadTable) as the
// table Tidy made, values and column order alike, and aggregate.csv as Aggregate.
func TestSchemaRoundTrip(t *testing.T) {
	var rows []Row
	for i, v := range []float64{1.5, 2.25, 3} {
		var r Row
		r.Set("size_bytes", int64(8<<i))
		r.Set("latency_us", v)
		r.Set("digest", "ab12")
		rows = append(rows, r)
	}
	rows, err := NormalizeRows(rows)
	require.NoError(t, err)
	rs := &Set{Title: "bench x", Keys: []string{"ppc.clock", SeedKey}, Kinds: map[string]string{"ppc.clock": "freq", SeedKey: "uint"},
		IsID: func(k string) bool { return k == "size_bytes" }}
	for i, clock := range []string{"250MHz", "500MHz"} {
		for s := range 2 {
			rs.Points = append(rs.Points, &Point{Index: 2*i + s, Rows: rows,
				Values: []params.KV{{Key: "ppc.clock", Value: clock}, {Key: SeedKey, Value: strconv.Itoa(s + 1)}}})
		}
	}
	dir := t.TempDir()
	_, _, err = WriteFiles(dir, rs)
	require.NoError(t, err)
	cols, recs := rs.Tidy()
	assert.Equal(t, []string{"point", "row", "ppc.clock", "ppc.clock_text", "seed", "size_bytes", "metric", "value"}, cols)
	tab, err := ReadTable(dir)
	require.NoError(t, err)
	assert.Equal(t, cols, tab.cols)
	require.Len(t, tab.recs, len(recs))
	for i := range recs {
		for j := range cols {
			assert.Equal(t, CellText(recs[i][j]), CellText(tab.recs[i][j]), "record %d column %s", i, cols[j])
		}
	}
	assert.Equal(t, "250000000", CellText(recs[0][2]), "a frequency in Hz")
	acols, arecs, ok := rs.Aggregate()
	require.True(t, ok)
	assert.Equal(t, []string{"row", "ppc.clock", "ppc.clock_text", "size_bytes", "metric", "n", "mean", "sd", "ci95_low", "ci95_high"}, acols)
	assert.Len(t, arecs, 2*3, "two clocks x three rows x one numeric metric (the digest is text)")
	b, err := os.ReadFile(filepath.Join(dir, AggregateCSV))
	require.NoError(t, err)
	assert.Equal(t, strings.Join(acols, ","), strings.SplitN(string(b), "\n", 2)[0])
	assert.Equal(t, "0", CellText(arecs[0][7]), "equal replicates: no spread")
}
