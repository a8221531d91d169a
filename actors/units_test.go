package actors

import (
	"encoding"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every unit-carrying type is text-(un)marshalable and a Stringer: the
// configuration layer relies on exactly this contract.
var (
	_ encoding.TextMarshaler   = Duration(0)
	_ encoding.TextUnmarshaler = (*Duration)(nil)
	_ fmt.Stringer             = Duration(0)
	_ encoding.TextMarshaler   = Time(0)
	_ encoding.TextUnmarshaler = (*Time)(nil)
	_ fmt.Stringer             = Time(0)
	_ encoding.TextMarshaler   = Freq(0)
	_ encoding.TextUnmarshaler = (*Freq)(nil)
	_ fmt.Stringer             = Freq(0)
	_ encoding.TextMarshaler   = Bytes(0)
	_ encoding.TextUnmarshaler = (*Bytes)(nil)
	_ fmt.Stringer             = Bytes(0)
	_ encoding.TextMarshaler   = Bandwidth(0)
	_ encoding.TextUnmarshaler = (*Bandwidth)(nil)
	_ fmt.Stringer             = Bandwidth(0)
	_ encoding.TextMarshaler   = Prob{}
	_ encoding.TextUnmarshaler = (*Prob)(nil)
	_ fmt.Stringer             = Prob{}
)

// unitInvalidCase is an input that must be rejected with an error containing
// every string in want.
type unitInvalidCase struct {
	in   string
	want []string
}

// checkUnitInvalid asserts that parse rejects every case, that the message
// quotes the input, and that it names what is wrong.
func checkUnitInvalid[T any](t *testing.T, parse func(string) (T, error), cases []unitInvalidCase) {
	t.Helper()
	for _, c := range cases {
		_, err := parse(c.in)
		if !assert.Error(t, err, "input %q", c.in) {
			continue
		}
		assert.Contains(t, err.Error(), strconv.Quote(c.in))
		assert.True(t, strings.HasPrefix(err.Error(), "actors: invalid "), err.Error())
		for _, w := range c.want {
			assert.Contains(t, err.Error(), w, "input %q", c.in)
		}
	}
}

func TestUnitParseDurationValid(t *testing.T) {
	cases := []struct {
		in   string
		want Duration
	}{
		{"0", 0},
		{"0s", 0},
		{"-0", 0},
		{"0.000", 0},
		{"1ps", 1},
		{"5ns", 5000},
		{"5 ns", 5000},
		{"  5ns\t", 5000},
		{"1.5us", 1_500_000},
		{"1.5µs", 1_500_000},
		{"1.5μs", 1_500_000},
		{"0.1us", 100_000},
		{".5ns", 500},
		{"5.ns", 5000},
		{"2e3ns", 2_000_000},
		{"2E3ns", 2_000_000},
		{"2e+3ns", 2_000_000},
		{"1500e-3ns", 1500},
		{"+3ms", 3 * Millisecond},
		{"-3ns", -3000},
		{"1s", Second},
		{"1.000000000001s", Second + 1},
		{"9223372.036854775807s", math.MaxInt64},
		{"-9223372.036854775808s", math.MinInt64},
		{"9223372036854775807ps", math.MaxInt64},
		{"0e999999999999999999999ns", 0},
		{"0.00000000000000000000000000000000000000000000000000001e53ps", 1},
	}
	for _, c := range cases {
		got, err := ParseDuration(c.in)
		if assert.NoError(t, err, c.in) {
			assert.Equal(t, c.want, got, c.in)
		}
	}
}

func TestUnitParseDurationInvalid(t *testing.T) {
	want := "(want ps, ns, us/µs/μs, ms, s)"
	checkUnitInvalid(t, ParseDuration, []unitInvalidCase{
		{"", []string{"empty"}},
		{"   ", []string{"empty"}},
		{"5 furlongs", []string{`unknown unit "furlongs"`, want}},
		{"5", []string{"missing unit", want}},
		{"1.5", []string{"missing unit"}},
		{"1.5ps", []string{"not a whole number of picoseconds"}},
		{"0.0001ns", []string{"not a whole number of picoseconds"}},
		{"1e-400s", []string{"not a whole number of picoseconds"}},
		{"-", []string{"does not start with a decimal number"}},
		{"+", []string{"does not start with a decimal number"}},
		{".", []string{"does not start with a decimal number"}},
		{"ns", []string{"does not start with a decimal number"}},
		{"e3ns", []string{"does not start with a decimal number"}},
		{"NaN", []string{"does not start with a decimal number"}},
		{"1e400s", []string{"out of range"}},
		{"9223372036854775808ps", []string{"out of range"}},
		{"-9223372036854775809ps", []string{"out of range"}},
		{"9223372.036854775808s", []string{"out of range"}},
		{"1e99999999999999999999s", []string{"out of range"}},
		{"5  ns", []string{`unknown unit " ns"`}},
		{"5NS", []string{`unknown unit "NS"`}},
		{"5e", []string{`unknown unit "e"`}},
		{"1/2s", []string{`unknown unit "/2s"`}},
		{"0x10ns", []string{`unknown unit "x10ns"`}},
		{"5ns5", []string{`unknown unit "ns5"`}},
		{"1" + strings.Repeat("0", maxInputLen) + "ps", []string{"longer than 128 bytes"}},
	})
}

func TestUnitParseDurationErrorMessage(t *testing.T) {
	_, err := ParseDuration("5 furlongs")
	require.EqualError(t, err,
		`actors: invalid duration "5 furlongs": unknown unit "furlongs" (want ps, ns, us/µs/μs, ms, s)`)
	_, err = ParseTime("5")
	require.EqualError(t, err,
		`actors: invalid time "5": missing unit (want ps, ns, us/µs/μs, ms, s)`)
}

func TestUnitDurationString(t *testing.T) {
	cases := []struct {
		in   Duration
		want string
	}{
		{0, "0s"},
		{1, "1ps"},
		{999, "999ps"},
		{1000, "1ns"},
		{1500, "1.5ns"},
		{2000, "2ns"},
		{1001, "1.001ns"},
		{1_234_567, "1.234567us"},
		{-3 * Nanosecond, "-3ns"},
		{100 * Microsecond, "100us"},
		{Second, "1s"},
		{90 * Second, "90s"},
		{math.MaxInt64, "9223372.036854775807s"},
		{math.MinInt64, "-9223372.036854775808s"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.in.String(), int64(c.in))
		assert.Equal(t, c.want, Time(c.in).String(), int64(c.in))
	}
}

// unitRandInt64s returns n seeded values covering small, round, large and
// extreme magnitudes, both signs.
func unitRandInt64s(seed uint64, n int) []int64 {
	r := rand.New(rand.NewPCG(seed, 0))
	vs := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, math.MaxInt64 - 1}
	for len(vs) < n {
		var v int64
		switch r.IntN(4) {
		case 0:
			v = r.Int64()
		case 1:
			v = r.Int64N(1_000_000)
		case 2: // round numbers exercise unit choice
			v = r.Int64N(10_000) * int64(math.Pow10(r.IntN(15)))
		default: // powers of two times small odd numbers exercise binary units
			v = (2*r.Int64N(100) + 1) << r.IntN(50)
		}
		if r.IntN(2) == 0 {
			v = -v
		}
		vs = append(vs, v)
	}
	return vs
}

// checkUnitRoundTrip asserts parse(String(v)) == v and the same through
// MarshalText/UnmarshalText.
func checkUnitRoundTrip[T interface {
	~int64
	fmt.Stringer
	encoding.TextMarshaler
}](t *testing.T, parse func(string) (T, error), unmarshal func(*T, []byte) error) {
	t.Helper()
	for _, raw := range unitRandInt64s(1, 20_000) {
		v := T(raw)
		got, err := parse(v.String())
		require.NoError(t, err, "value %d prints %q", raw, v.String())
		require.Equal(t, v, got, "value %d prints %q", raw, v.String())
		text, err := v.MarshalText()
		require.NoError(t, err)
		var back T
		require.NoError(t, unmarshal(&back, text))
		require.Equal(t, v, back)
	}
}

func TestUnitRoundTrip(t *testing.T) {
	t.Run("Duration", func(t *testing.T) {
		checkUnitRoundTrip(t, ParseDuration, (*Duration).UnmarshalText)
	})
	t.Run("Time", func(t *testing.T) {
		checkUnitRoundTrip(t, ParseTime, (*Time).UnmarshalText)
	})
	t.Run("Freq", func(t *testing.T) {
		checkUnitRoundTrip(t, ParseFreq, (*Freq).UnmarshalText)
	})
	t.Run("Bytes", func(t *testing.T) {
		checkUnitRoundTrip(t, ParseBytes, (*Bytes).UnmarshalText)
	})
	t.Run("Bandwidth", func(t *testing.T) {
		checkUnitRoundTrip(t, ParseBandwidth, (*Bandwidth).UnmarshalText)
	})
}

// TestUnitStringShortest checks String against a dumb model: among all
// printable units no larger than the value, none renders with fewer digits.
func TestUnitStringShortest(t *testing.T) {
	for _, q := range []*quantity{durationQ, freqQ, bytesQ, bandwidthQ} {
		for _, v := range unitRandInt64s(2, 2000) {
			if v == 0 {
				continue
			}
			got := strings.TrimPrefix(q.format(v), "-")
			gotDigits := unitCountDigits(got)
			for _, u := range q.units {
				if u.print == "" || absUint(v) < uint64(u.num) {
					continue
				}
				r := new(big.Rat).SetFrac64(1, u.num)
				r.Mul(r, new(big.Rat).SetInt(new(big.Int).SetUint64(absUint(v))))
				alt := r.FloatString(60)
				alt = strings.TrimRight(strings.TrimRight(alt, "0"), ".")
				assert.LessOrEqual(t, gotDigits, unitCountDigits(alt), "%s %d: %q vs %s%s", q.kind, v, got, alt, u.print)
			}
		}
	}
}

func unitCountDigits(s string) int {
	n := 0
	for _, c := range s {
		if '0' <= c && c <= '9' {
			n++
		}
	}
	return n
}

// TestUnitPrintableUnitsTerminate guards formatFixed: a printable unit with
// a prime factor other than 2 and 5 would print an infinite decimal.
func TestUnitPrintableUnitsTerminate(t *testing.T) {
	for _, q := range []*quantity{durationQ, timeQ, freqQ, bytesQ, bandwidthQ} {
		for _, u := range q.units {
			if u.print == "" {
				continue
			}
			require.Equal(t, int64(1), u.den, u.print)
			n := u.num
			for n%2 == 0 {
				n /= 2
			}
			for n%5 == 0 {
				n /= 5
			}
			require.Equal(t, int64(1), n, "%s unit %s", q.kind, u.print)
			require.LessOrEqual(t, u.num, int64(1)<<40, u.print)
		}
	}
}

func TestUnitUnmarshalTextKeepsValueOnError(t *testing.T) {
	d := 7 * Nanosecond
	require.Error(t, d.UnmarshalText([]byte("5 furlongs")))
	require.Equal(t, 7*Nanosecond, d)
	require.NoError(t, d.UnmarshalText([]byte("8ns")))
	require.Equal(t, 8*Nanosecond, d)

	p := MustParseProb("0.5")
	require.Error(t, p.UnmarshalText([]byte("2")))
	require.Equal(t, MustParseProb("0.5"), p)
}

func TestUnitParseTime(t *testing.T) {
	got, err := ParseTime("1.5us")
	require.NoError(t, err)
	require.Equal(t, Time(1_500_000), got)
	require.Equal(t, "9223372.036854775807s", MaxTime.String())
	_, err = ParseTime("1.5ps")
	require.ErrorContains(t, err, `actors: invalid time "1.5ps": not a whole number of picoseconds`)
}

func TestUnitParseFreq(t *testing.T) {
	valid := []struct {
		in   string
		want Freq
	}{
		{"0", 0},
		{"1Hz", 1},
		{"500MHz", 500 * Megahertz},
		{"2.6GHz", 2_600_000_000},
		{"2.6 GHz", 2_600_000_000},
		{"10kHz", 10_000},
		{"10KHz", 10_000},
		{"1.5kHz", 1500},
		{"9223372036.854775807GHz", math.MaxInt64},
	}
	for _, c := range valid {
		got, err := ParseFreq(c.in)
		if assert.NoError(t, err, c.in) {
			assert.Equal(t, c.want, got, c.in)
		}
	}
	want := "(want Hz, kHz/KHz, MHz, GHz)"
	checkUnitInvalid(t, ParseFreq, []unitInvalidCase{
		{"", []string{"empty"}},
		{"500", []string{"missing unit", want}},
		{"5 furlongs", []string{`unknown unit "furlongs"`, want}},
		{"500mhz", []string{`unknown unit "mhz"`}},
		{"0.5Hz", []string{"not a whole number of hertz"}},
		{"1e400Hz", []string{"out of range"}},
		{"10GHz0", []string{"unknown unit"}},
		{"-", []string{"does not start with a decimal number"}},
	})
}

func TestUnitFreqString(t *testing.T) {
	for in, want := range map[Freq]string{
		0:              "0Hz",
		1:              "1Hz",
		500_000_000:    "500MHz",
		2_600_000_000:  "2.6GHz",
		1_500:          "1.5kHz",
		-2 * Gigahertz: "-2GHz",
	} {
		assert.Equal(t, want, in.String())
	}
}

func TestUnitFreqPeriodCycles(t *testing.T) {
	assert.Equal(t, 2000*Picosecond, (500 * Megahertz).Period())
	assert.Equal(t, 385*Picosecond, Freq(2_600_000_000).Period())
	assert.Equal(t, 1154*Picosecond, Freq(2_600_000_000).Cycles(3))
	assert.Equal(t, -1154*Picosecond, Freq(2_600_000_000).Cycles(-3))
	assert.Equal(t, Duration(0), Freq(2_600_000_000).Cycles(0))
	assert.Equal(t, Second, Hertz.Period())
	// 1e12/8e11 = 1.25 rounds down, 1e12/4e11 = 2.5 rounds half away from zero.
	assert.Equal(t, Duration(1), Freq(800_000_000_000).Period())
	assert.Equal(t, Duration(3), Freq(400_000_000_000).Period())
	assert.Equal(t, Duration(-3), Freq(400_000_000_000).Cycles(-1))
	// Saturation instead of overflow.
	assert.Equal(t, Duration(math.MaxInt64), Hertz.Cycles(math.MaxInt64))
	assert.Equal(t, Duration(math.MinInt64), Hertz.Cycles(math.MinInt64))
	assert.Equal(t, Duration(math.MaxInt64), Freq(1000).Cycles(math.MaxInt64/1000))
	// Zero and negative frequencies are documented to give 0.
	for _, f := range []Freq{0, -1, math.MinInt64} {
		assert.Equal(t, Duration(0), f.Period())
		assert.Equal(t, Duration(0), f.Cycles(12345))
	}
}

// TestUnitFreqCyclesModel compares Cycles with exact rationals: the result is
// within half a picosecond of n*1e12/f, and exact halves round away from 0.
func TestUnitFreqCyclesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 0))
	for range 20_000 {
		f := Freq(r.Int64N(10_000_000_000) + 1)
		n := r.Int64N(1_000_000_000) - 500_000_000
		if r.IntN(4) == 0 {
			n = r.Int64() // mostly saturating
		}
		got := f.Cycles(n)
		exact := new(big.Rat).SetFrac(
			new(big.Int).Mul(big.NewInt(n), big.NewInt(int64(Second))), big.NewInt(int64(f)))
		if exact.Cmp(big.NewRat(math.MaxInt64, 1)) >= 0 {
			require.Equal(t, Duration(math.MaxInt64), got)
			continue
		}
		if exact.Cmp(big.NewRat(math.MinInt64, 1)) <= 0 {
			require.Equal(t, Duration(math.MinInt64), got)
			continue
		}
		diff := new(big.Rat).Sub(exact, new(big.Rat).SetInt64(int64(got)))
		half := big.NewRat(1, 2)
		require.LessOrEqual(t, new(big.Rat).Abs(diff).Cmp(half), 0, "f=%d n=%d", f, n)
		if new(big.Rat).Abs(diff).Cmp(half) == 0 {
			require.Equal(t, exact.Sign() < 0, diff.Sign() > 0, "tie away from zero f=%d n=%d", f, n)
		}
	}
}

func TestUnitParseBytes(t *testing.T) {
	valid := []struct {
		in   string
		want Bytes
	}{
		{"0", 0},
		{"64", 64},
		{"64B", 64},
		{"64 B", 64},
		{"1K", 1024},
		{"1KB", 1024},
		{"1KiB", 1024},
		{"1.5K", 1536},
		{"384 KB", 393216},
		{"2M", 2 << 20},
		{"2MB", 2 << 20},
		{"1GiB", 1 << 30},
		{"1G", 1 << 30},
		{"1TB", 1 << 40},
		{"0.5KiB", 512},
		{"1e3", 1000},
		{"-1K", -1024},
		{"8388607.999999999998181010596454143524169921875TiB", math.MaxInt64 - 1},
	}
	for _, c := range valid {
		got, err := ParseBytes(c.in)
		if assert.NoError(t, err, c.in) {
			assert.Equal(t, c.want, got, c.in)
		}
	}
	want := "(want B, K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB)"
	checkUnitInvalid(t, ParseBytes, []unitInvalidCase{
		{"", []string{"empty"}},
		{"0.5B", []string{"not a whole number of bytes"}},
		{"0.5", []string{"not a whole number of bytes"}},
		{"1.0001K", []string{"not a whole number of bytes"}},
		{"5 furlongs", []string{`unknown unit "furlongs"`, want}},
		{"1kB", []string{`unknown unit "kB"`}},
		{"8EiB", []string{`unknown unit "EiB"`}},
		{"8388608TiB", []string{"out of range"}},
		{"1e400", []string{"out of range"}},
		{"-", []string{"does not start with a decimal number"}},
	})
}

func TestUnitBytesString(t *testing.T) {
	for in, want := range map[Bytes]string{
		0:          "0B",
		64:         "64B",
		1023:       "1023B",
		1024:       "1KiB",
		1025:       "1025B",
		1536:       "1.5KiB",
		393216:     "384KiB",
		1 << 20:    "1MiB",
		1025 << 10: "1025KiB",
		3 << 29:    "1.5GiB",
		1 << 40:    "1TiB",
		-2048:      "-2KiB",
	} {
		assert.Equal(t, want, in.String(), int64(in))
	}
}

func TestUnitParseBandwidth(t *testing.T) {
	valid := []struct {
		in   string
		want Bandwidth
	}{
		{"0", 0},
		{"1B/s", 1},
		{"2.5GB/s", 2_500_000_000},
		{"2.5 GB/s", 2_500_000_000},
		{"1KB/s", 1000},
		{"1KiB/s", 1024},
		{"1MiB/s", 1 << 20},
		{"1GiB/s", 1 << 30},
		{"1TiB/s", 1 << 40},
		{"3MB/s", 3_000_000},
		{"1TB/s", 1_000_000_000_000},
		{"10Gb/s", 1_250_000_000},
		{"8b/s", 1},
		{"1Kb/s", 125},
		{"1Mb/s", 125_000},
		{"1Tb/s", 125_000_000_000},
	}
	for _, c := range valid {
		got, err := ParseBandwidth(c.in)
		if assert.NoError(t, err, c.in) {
			assert.Equal(t, c.want, got, c.in)
		}
	}
	checkUnitInvalid(t, ParseBandwidth, []unitInvalidCase{
		{"", []string{"empty"}},
		{"100", []string{"missing unit", "B/s", "Gb/s", "GiB/s"}},
		{"5 furlongs", []string{`unknown unit "furlongs"`}},
		{"1b/s", []string{"not a whole number of bytes per second"}},
		{"0.5B/s", []string{"not a whole number of bytes per second"}},
		{"2.5GBps", []string{`unknown unit "GBps"`}},
		{"1e400GB/s", []string{"out of range"}},
		{"-", []string{"does not start with a decimal number"}},
	})
}

func TestUnitBandwidthString(t *testing.T) {
	for in, want := range map[Bandwidth]string{
		0:             "0B/s",
		1:             "1B/s",
		2_500_000_000: "2.5GB/s",
		1_250_000_000: "1.25GB/s",
		1 << 30:       "1GiB/s",
		1024:          "1KiB/s",
		1_024_000:     "1.024MB/s",
		-3_000_000:    "-3MB/s",
	} {
		assert.Equal(t, want, in.String(), int64(in))
	}
}

func TestUnitBandwidthTransferTime(t *testing.T) {
	assert.Equal(t, Duration(25600), Bandwidth(2_500_000_000).TransferTime(64))
	assert.Equal(t, Duration(333_333_333_334), Bandwidth(3).TransferTime(1))
	assert.Equal(t, Second, Bandwidth(1).TransferTime(1))
	assert.Equal(t, Duration(0), Bandwidth(3).TransferTime(0))
	assert.Equal(t, Duration(0), Bandwidth(3).TransferTime(-5))
	assert.Equal(t, Duration(math.MaxInt64), Bandwidth(0).TransferTime(1))
	assert.Equal(t, Duration(math.MaxInt64), Bandwidth(-1).TransferTime(1))
	assert.Equal(t, Duration(math.MaxInt64), Bandwidth(1).TransferTime(math.MaxInt64))
	assert.Equal(t, Duration(math.MaxInt64), Bandwidth(1000).TransferTime(math.MaxInt64))
	// Exact at the top: MaxInt64 bytes at MaxInt64 B/s is one second.
	assert.Equal(t, Second, Bandwidth(math.MaxInt64).TransferTime(math.MaxInt64))
}

// TestUnitBandwidthTransferTimeModel compares TransferTime with exact
// rationals: got-1 < n*1e12/b <= got.
func TestUnitBandwidthTransferTimeModel(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 0))
	for range 20_000 {
		b := Bandwidth(r.Int64N(100_000_000_000) + 1)
		n := Bytes(r.Int64N(1 << 40))
		got := b.TransferTime(n)
		exact := new(big.Rat).SetFrac(
			new(big.Int).Mul(big.NewInt(int64(n)), big.NewInt(int64(Second))), big.NewInt(int64(b)))
		if exact.Cmp(big.NewRat(math.MaxInt64, 1)) > 0 {
			require.Equal(t, Duration(math.MaxInt64), got)
			continue
		}
		g := new(big.Rat).SetInt64(int64(got))
		require.LessOrEqual(t, exact.Cmp(g), 0, "b=%d n=%d", b, n)
		require.Positive(t, exact.Cmp(g.Sub(g, big.NewRat(1, 1))), "b=%d n=%d", b, n)
	}
}

func TestUnitParseProb(t *testing.T) {
	valid := []struct {
		in, str string
	}{
		{"0", "0"},
		{"-0", "0"},
		{"0.0", "0"},
		{"1", "1"},
		{"1.000", "1"},
		{"100%", "1"},
		{"0.25", "0.25"},
		{".25", "0.25"},
		{"0.250", "0.25"},
		{"25%", "0.25"},
		{"25 %", "0.25"},
		{"1e-3", "0.001"},
		{"2.5e-1", "0.25"},
		{"1e-3%", "0.00001"},
		{"0.0000000000000000001", "0.0000000000000000001"},
		{"0.9999999999999999999", "0.9999999999999999999"},
	}
	for _, c := range valid {
		p, err := ParseProb(c.in)
		if assert.NoError(t, err, c.in) {
			assert.Equal(t, c.str, p.String(), c.in)
		}
	}
	checkUnitInvalid(t, ParseProb, []unitInvalidCase{
		{"", []string{"empty"}},
		{"1.5", []string{"out of range", "[0, 1]"}},
		{"10", []string{"out of range"}},
		{"1.0000000000000000000001", []string{"out of range"}},
		{"-0.1", []string{"out of range"}},
		{"101%", []string{"out of range"}},
		{"1e400", []string{"out of range"}},
		{"1e-20", []string{"finer than 1e-19"}},
		{"0.5x", []string{`unknown suffix "x"`}},
		{"50%%", []string{`unknown suffix "%%"`}},
		{"-", []string{"does not start with a decimal number"}},
		{"1/2", []string{`unknown suffix "/2"`}},
	})
}

func TestUnitProbSample(t *testing.T) {
	never := MustParseProb("0")
	require.Equal(t, Prob{}, never, "zero value is never")
	always := MustParseProb("1")
	half := MustParseProb("0.5")
	for _, u := range []uint64{0, 1, 1 << 63, math.MaxUint64} {
		assert.False(t, never.Sample(u))
		assert.True(t, always.Sample(u))
	}
	assert.True(t, half.Sample(1<<63-1))
	assert.False(t, half.Sample(1<<63))
	quarter := MustParseProb("25%")
	assert.True(t, quarter.Sample(1<<62-1))
	assert.False(t, quarter.Sample(1<<62))
	tiny := MustParseProb("1e-19")
	assert.True(t, tiny.Sample(0), "a positive probability is never 'never'")
	assert.True(t, tiny.Sample(1))
	assert.False(t, tiny.Sample(2))
	almost := MustParseProb("0.9999999999999999999")
	assert.False(t, almost.Sample(math.MaxUint64), "only exactly 1 is always")
	assert.Panics(t, func() { MustParseProb("2") })
}

// TestUnitProbThresholdModel checks threshold = round(p·2^64) against
// exact rationals for random decimals.
func TestUnitProbThresholdModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 0))
	two64 := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 64))
	for range 10_000 {
		scale := r.IntN(maxProbScale) + 1
		digits := strconv.FormatUint(r.Uint64N(uint64(math.Pow10(min(scale, 18)))), 10)
		s := "0." + strings.Repeat("0", scale-len(digits)) + digits
		if len(digits) > scale {
			continue
		}
		p := MustParseProb(s)
		exact, _ := new(big.Rat).SetString(s)
		exact.Mul(exact, two64)
		th := new(big.Rat).SetInt(new(big.Int).SetUint64(p.threshold))
		diff := new(big.Rat).Abs(new(big.Rat).Sub(exact, th))
		require.LessOrEqual(t, diff.Cmp(big.NewRat(1, 2)), 0, s)
		f, _ := exact.Quo(exact, two64).Float64()
		require.Equal(t, f, p.Float64(), s)
		back, err := ParseProb(p.String())
		require.NoError(t, err)
		require.Equal(t, p, back, s)
	}
}

func TestUnitProbFloat64(t *testing.T) {
	assert.Equal(t, 0.0, Prob{}.Float64())
	assert.Equal(t, 1.0, MustParseProb("1").Float64())
	assert.Equal(t, 0.1, MustParseProb("0.1").Float64())
	assert.Equal(t, 0.001, MustParseProb("1e-3").Float64())
}

func TestUnitProbText(t *testing.T) {
	var p Prob
	require.NoError(t, p.UnmarshalText([]byte("12.5%")))
	text, err := p.MarshalText()
	require.NoError(t, err)
	require.Equal(t, "0.125", string(text))
}

func TestUnitUnitsHelp(t *testing.T) {
	d := Duration(0)
	assert.Equal(t, "duration: ps, ns, us/µs/μs, ms, s", UnitsHelp(d))
	assert.Equal(t, UnitsHelp(d), UnitsHelp(&d))
	assert.Equal(t, "time: ps, ns, us/µs/μs, ms, s", UnitsHelp(Time(0)))
	assert.Equal(t, "frequency: Hz, kHz/KHz, MHz, GHz", UnitsHelp(Freq(0)))
	assert.Contains(t, UnitsHelp(Bytes(0)), "size: B, K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB")
	assert.Contains(t, UnitsHelp(Bytes(0)), "1024")
	assert.Contains(t, UnitsHelp(new(Bandwidth)), "bandwidth: b/s, B/s, Kb/s, KB/s, KiB/s")
	assert.Contains(t, UnitsHelp(Prob{}), "probability")
	assert.Contains(t, UnitsHelp(new(Prob)), "25%")
	assert.Equal(t, "", UnitsHelp(42))
	assert.Equal(t, "", UnitsHelp(nil))
}

// Time.Add saturates at MaxTime on a positive overflow only, whatever the order of its
// tests: zero, positive and negative durations, near and at MaxTime, and below zero.
func TestTimeAddSaturates(t *testing.T) {
	for _, c := range []struct {
		t    Time
		d    Duration
		want Time
	}{
		{0, 0, 0},
		{5, 7, 12},
		{5, -7, -2},
		{MaxTime - 10, 10, MaxTime},
		{MaxTime - 10, 11, MaxTime},
		{MaxTime - 10, Duration(MaxTime), MaxTime},
		{MaxTime, 1, MaxTime},
		{MaxTime, 0, MaxTime},
		{MaxTime, -1, MaxTime - 1},
		{-5, Duration(MaxTime), MaxTime - 5},
		{-5, -Duration(MaxTime) + 5, -MaxTime},
		{0, Duration(MaxTime), MaxTime},
	} {
		assert.Equal(t, c.want, c.t.Add(c.d), "%d + %d", c.t, c.d)
	}
}
