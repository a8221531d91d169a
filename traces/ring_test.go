package traces

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/protocols/portals3"
)

// figure2 is the example output of the tracedump tool in Pedretti & Hudson 2005,
// figure 2.
const figure2 = `e4681e8b: 24: 18ff0c4c mainloop+0014 (178 ns)
e4681ee4: 99: 63ff313c rx_complete+001c (84 ns)
e4681f0e: 0: 00ff318c rx_complete+006c (24 ns)
e4681f1a: 0: 00ff3198 rx_complete+0078 (374 ns)
e4681fd5: 5: 05ff12b4 handle_command+0030 (156 ns)
e4682023: 0: 00ff24b0 goaccel_tx_command+001c (80 ns)
e468204b: 0: 00ff24c0 goaccel_tx_command+002c (40 ns)
e468205f: 0: 00ff2124 resolve_source+0030 (18 ns)
e4682068: 0: 00ff212c resolve_source+0038 (102 ns)
e468209b: 0: 00ff2504 goaccel_tx_command+0070 (290 ns)
`

// Pedretti & Hudson 2005 s.3.3, figure 2: the raw records of the figure, with the
// symbols its program counters resolve against, print exactly as the figure shows
// them (the 500 MHz time base ticks every 2 ns; the last line's delta needs the record
// after it, which is here and prints without a delta).
func TestDumpReproducesFigure2(t *testing.T) {
	f := &RingFile{Symbols: []Symbol{
		{0xff0c38, "mainloop"}, {0xff1284, "handle_command"}, {0xff20f4, "resolve_source"},
		{0xff2494, "goaccel_tx_command"}, {0xff3120, "rx_complete"},
	}}
	var recs []RawRecord
	for line := range strings.Lines(figure2) {
		var stamp, word uint32
		var value int
		var rest string
		_, err := fmt.Sscanf(line, "%x: %d: %x %s", &stamp, &value, &word, &rest)
		require.NoError(t, err)
		recs = append(recs, RawRecord{Stamp: stamp, Word: word})
	}
	recs = append(recs, RawRecord{Stamp: 0xe468209b + 145, Word: 0x00ff0c4c})
	f.Rings = []RawRing{{Name: "node[0,0,0].ppc", Period: 2 * actors.Nanosecond, Total: 11, Records: recs}}
	var out bytes.Buffer
	require.NoError(t, f.Dump(&out))
	assert.Equal(t, "# node[0,0,0].ppc: 11 records (11 written)\n"+figure2+"e468212c: 0: 00ff0c4c mainloop+0014\n", out.String())
}

// WriteRings lays the symbols out from the records and ReadRings gets the same
// records back: function, offset, value and the timestamp in PPC ticks.
func TestRingFileRoundTrip(t *testing.T) {
	rings := []Ring{
		{Name: "node[0,0,0].ppc", Period: 2 * actors.Nanosecond, Total: 5, Records: []ppc.Record{
			{At: actors.Time(1000 * actors.Nanosecond), Func: "mainloop", Offset: 0x14, Value: 1},
			{At: actors.Time(1200 * actors.Nanosecond), Func: "tx_command", Offset: 0x6c, Value: 7},
			{At: actors.Time(1300 * actors.Nanosecond), Func: "mainloop", Offset: 0x14, Value: 6},
		}},
		{Name: "node[1,0,0].ppc", Period: 2 * actors.Nanosecond, Total: 1, Records: []ppc.Record{
			{At: actors.Time(3 * actors.Microsecond), Func: "rx_header", Offset: 0x400, Value: 255},
		}},
	}
	var buf bytes.Buffer
	require.NoError(t, WriteRings(&buf, rings))
	f, err := ReadRings(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	require.Len(t, f.Rings, 2)
	for i, r := range rings {
		got := f.Rings[i]
		assert.Equal(t, r.Name, got.Name)
		assert.Equal(t, r.Period, got.Period)
		assert.Equal(t, uint64(r.Total), got.Total)
		require.Len(t, got.Records, len(r.Records))
		for j, rec := range r.Records {
			fn, off := f.Resolve(got.Records[j].PC())
			assert.Equal(t, rec.Func, fn)
			assert.Equal(t, rec.Offset, off)
			assert.Equal(t, rec.Value, got.Records[j].Value())
			assert.Equal(t, uint32(int64(rec.At)/int64(2*actors.Nanosecond)), got.Records[j].Stamp)
		}
	}
	var out bytes.Buffer
	require.NoError(t, f.Dump(&out))
	assert.Equal(t, `# node[0,0,0].ppc: 3 records (5 written)
000001f4: 1: 01ff0014 mainloop+0014 (200 ns)
00000258: 7: 07ff066c tx_command+006c (100 ns)
0000028a: 6: 06ff0014 mainloop+0014
# node[1,0,0].ppc: 1 records (1 written)
000005dc: 255: ffff0500 rx_header+0400
`, out.String())
}

// The 32-bit time base wraps (every 8.6 s at 500 MHz); deltas across the wrap are right.
func TestDumpDeltaAcrossWrap(t *testing.T) {
	f := &RingFile{Symbols: []Symbol{{textBase, "f"}}, Rings: []RawRing{{Name: "p", Period: 2 * actors.Nanosecond, Total: 2,
		Records: []RawRecord{{Stamp: 0xfffffff0, Word: textBase}, {Stamp: 0x10, Word: textBase}}}}}
	var out bytes.Buffer
	require.NoError(t, f.Dump(&out))
	assert.Contains(t, out.String(), "fffffff0: 0: 00ff0000 f+0000 (64 ns)\n")
}

// Bad files are errors that say what is wrong, never panics.
func TestReadRingsRejectsBadFiles(t *testing.T) {
	var good bytes.Buffer
	require.NoError(t, WriteRings(&good, []Ring{{Name: "p", Period: 2 * actors.Nanosecond, Total: 1,
		Records: []ppc.Record{{At: 10, Func: "f", Offset: 4, Value: 1}}}}))
	b := good.Bytes()
	for n := range len(b) {
		_, err := ReadRings(bytes.NewReader(b[:n]))
		require.Error(t, err, "truncated at %d", n)
		assert.Contains(t, err.Error(), "trace ring file")
	}
	_, err := ReadRings(bytes.NewReader(append(append([]byte{}, b...), 0)))
	assert.ErrorContains(t, err, "trailing bytes")
	_, err = ReadRings(strings.NewReader("ELF\x7f...."))
	assert.ErrorContains(t, err, "not a trace ring file")
	huge := binary.BigEndian.AppendUint32([]byte(ringMagic), 0xffffffff)
	_, err = ReadRings(bytes.NewReader(huge))
	assert.ErrorContains(t, err, "implausible")
	over := append([]byte{}, b...)
	// magic 8, symbol count 4, symbol "f" 7, ring count 4, ring name "p" 3, period 8:
	// the ring's records-written count is at byte 34.
	binary.BigEndian.PutUint64(over[34:], 0)
	_, err = ReadRings(bytes.NewReader(over))
	assert.ErrorContains(t, err, "only 0 were written")
	zero := append([]byte{}, b...)
	binary.BigEndian.PutUint64(zero[26:], 0) // period
	_, err = ReadRings(bytes.NewReader(zero))
	assert.ErrorContains(t, err, "clock period 0 ps must be > 0")
	assert.Error(t, WriteRings(&bytes.Buffer{}, []Ring{{Name: "p"}}))
}

func FuzzReadRings(f *testing.F) {
	var good bytes.Buffer
	_ = WriteRings(&good, []Ring{{Name: "p", Period: 2 * actors.Nanosecond, Total: 2,
		Records: []ppc.Record{{At: 10, Func: "f", Offset: 4, Value: 1}, {At: 20, Func: "g", Offset: 8}}}})
	f.Add(good.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		rf, err := ReadRings(bytes.NewReader(b))
		if err != nil {
			return
		}
		require.NoError(t, rf.Dump(&bytes.Buffer{}))
	})
}

// Pedretti & Hudson 2005 s.3.3: with trace points compiled in, the Portals firmware
// records its dispatches and handlers in each PPC's ring, and every trace point costs
// about 10 ns of PPC time, so the put latency grows; compiled out, it costs nothing.
func TestPortalsFirmwareTraceRing(t *testing.T) {
	run := func(enabled bool) (*portals3.PerfResult, []Ring) {
		cfg := portals3.DefaultPerfConfig()
		cfg.Sizes, cfg.Iters, cfg.Warmup = []int64{0}, 4, 1
		cfg.Machine.PPC.TraceEnabled = enabled
		c, err := New(Config{})
		require.NoError(t, err)
		res, err := portals3.PortalPerf(context.Background(), cfg, actors.Options{Engine: actors.Serial, Tracer: c.Tracer})
		require.NoError(t, err)
		require.NoError(t, c.Close().Err)
		return res, c.Rings()
	}
	off, none := run(false)
	on, rings := run(true)
	assert.Empty(t, none)
	require.Len(t, rings, 2)
	assert.Equal(t, "node[0,0,0].ppc", rings[0].Name)
	assert.Equal(t, 2*actors.Nanosecond, rings[0].Period, "500 MHz")
	funcs := map[string]bool{}
	for _, r := range rings {
		assert.Equal(t, int64(len(r.Records)), r.Total, "the ring has not wrapped")
		for i, rec := range r.Records {
			funcs[rec.Func] = true
			if i > 0 {
				assert.LessOrEqual(t, r.Records[i-1].At, rec.At)
			}
		}
	}
	for _, f := range []string{"mainloop", "tx_command", "tx_done", "rx_header", "release"} {
		assert.True(t, funcs[f], "trace point in %s", f)
	}
	extra := on.Rows[0].Latency - off.Rows[0].Latency
	assert.Positive(t, extra)
	assert.Zero(t, extra%(10*actors.Nanosecond/2), "whole trace points on the one-way path (%s)", extra)

	var buf bytes.Buffer
	require.NoError(t, WriteRings(&buf, rings))
	f, err := ReadRings(&buf)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, f.Dump(&out))
	first := strings.SplitN(out.String(), "\n", 3)
	assert.Equal(t, fmt.Sprintf("# node[0,0,0].ppc: %d records (%d written)", len(rings[0].Records), rings[0].Total), first[0])
	assert.Regexp(t, `^[0-9a-f]{8}: [0-9]+: [0-9a-f]{8} mainloop\+0014 \([0-9]+ ns\)$`, first[1])
}
