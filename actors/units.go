package actors

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// This file is the one parser and printer for values with units. Every
// simulator parameter type (Duration, Time, Freq, Bytes, Bandwidth, Prob)
// implements fmt.Stringer, encoding.TextMarshaler and encoding.TextUnmarshaler,
// and String output always parses back to the same value, so configuration
// files, logs and goldens share one syntax:
//
//	[sign] digits [. digits] [e|E [sign] digits] [one space] unit
//
// Numbers are converted with exact decimal arithmetic, never floats: "0.1us"
// is exactly 100000 ps, and a value that is not a whole number of the base
// unit ("1.5ps", "0.5B") is an error rather than silently rounded.

// Freq is a clock frequency in integer hertz. Text form: a number and one of
// Hz, kHz (or KHz), MHz, GHz, e.g. "500MHz", "2.6GHz".
type Freq int64

// Units of frequency.
const (
	Hertz     Freq = 1
	Kilohertz      = 1000 * Hertz
	Megahertz      = 1000 * Kilohertz
	Gigahertz      = 1000 * Megahertz
)

// Bytes is a size in integer bytes. Multiples are binary, following the JEDEC
// memory convention used by the SeaStar papers: K = KB = KiB = 1024 bytes,
// M = MB = MiB = 2^20, G = GB = GiB = 2^30, T = TB = TiB = 2^40, so
// "384 KB SRAM" is 393216 B. A bare number is bytes ("64" == "64B").
// String prints B, KiB, MiB, GiB or TiB.
type Bytes int64

// Units of size (binary multiples, see Bytes).
const (
	Byte Bytes = 1
	KiB        = 1024 * Byte
	MiB        = 1024 * KiB
	GiB        = 1024 * MiB
	TiB        = 1024 * GiB
)

// Bandwidth is a data rate in integer bytes per second. Unlike Bytes, rate
// multiples are decimal as rates conventionally are (KB/s = 1000 B/s,
// GB/s = 1e9 B/s); KiB/s, MiB/s, GiB/s, TiB/s are binary; bit rates b/s,
// Kb/s, Mb/s, Gb/s, Tb/s are divided by 8 (10Gb/s = 1.25e9 B/s).
type Bandwidth int64

// Units of bandwidth (decimal multiples, see Bandwidth).
const (
	BytePerSecond Bandwidth = 1
	KBPerSecond             = 1000 * BytePerSecond
	MBPerSecond             = 1000 * KBPerSecond
	GBPerSecond             = 1000 * MBPerSecond
)

// maxInputLen bounds the text a parser accepts, so that a corrupt or hostile
// configuration cannot make the exact big-number arithmetic slow.
const maxInputLen = 128

// maxProbScale is the finest decimal place a Prob may use: 1e-19 is still
// coarser than the 2^-64 resolution of Sample, so every accepted
// probability maps to a distinct nonzero threshold.
const maxProbScale = 19

// psPerSecond is Second as an unsigned operand of 128-bit arithmetic.
const psPerSecond = uint64(Second)

// unit is one accepted spelling of a multiple of a quantity's base unit.
type unit struct {
	names []string // accepted spellings (case-sensitive: "mHz" is not "MHz")
	num   int64    // one unit is num/den base units
	den   int64
	print string // name String uses; "" if String never picks this unit
}

// quantity describes how one type parses and prints. The tables below are
// read-only after package initialization.
type quantity struct {
	kind    string // "duration", used in error messages and help
	base    string // plural base unit, for "not a whole number of ..."
	units   []unit // ascending by size
	bare    bool   // a number without unit is in base units
	zero    string // how 0 prints
	example string // a valid value, shown when the input is not a number
	note    string // extra help text
}

var durationUnits = []unit{
	{names: []string{"ps"}, num: 1, den: 1, print: "ps"},
	{names: []string{"ns"}, num: int64(Nanosecond), den: 1, print: "ns"},
	{names: []string{"us", "µs", "μs"}, num: int64(Microsecond), den: 1, print: "us"},
	{names: []string{"ms"}, num: int64(Millisecond), den: 1, print: "ms"},
	{names: []string{"s"}, num: int64(Second), den: 1, print: "s"},
}

var durationQ = &quantity{
	kind: "duration", base: "picoseconds", units: durationUnits,
	zero: "0s", example: "1.5us",
}

var timeQ = &quantity{
	kind: "time", base: "picoseconds", units: durationUnits,
	zero: "0s", example: "1.5us",
}

var freqQ = &quantity{
	kind: "frequency", base: "hertz", zero: "0Hz", example: "2.6GHz",
	units: []unit{
		{names: []string{"Hz"}, num: 1, den: 1, print: "Hz"},
		{names: []string{"kHz", "KHz"}, num: 1e3, den: 1, print: "kHz"},
		{names: []string{"MHz"}, num: 1e6, den: 1, print: "MHz"},
		{names: []string{"GHz"}, num: 1e9, den: 1, print: "GHz"},
	},
}

var bytesQ = &quantity{
	kind: "size", base: "bytes", bare: true, zero: "0B", example: "384KiB",
	note: "binary multiples: K = KB = KiB = 1024; a bare number is bytes",
	units: []unit{
		{names: []string{"B"}, num: 1, den: 1, print: "B"},
		{names: []string{"K", "KB", "KiB"}, num: 1 << 10, den: 1, print: "KiB"},
		{names: []string{"M", "MB", "MiB"}, num: 1 << 20, den: 1, print: "MiB"},
		{names: []string{"G", "GB", "GiB"}, num: 1 << 30, den: 1, print: "GiB"},
		{names: []string{"T", "TB", "TiB"}, num: 1 << 40, den: 1, print: "TiB"},
	},
}

var bandwidthQ = &quantity{
	kind: "bandwidth", base: "bytes per second", zero: "0B/s", example: "2.5GB/s",
	note: "KB/s = 1000 B/s, KiB/s = 1024 B/s, b/s = 1/8 B/s",
	units: []unit{
		{names: []string{"b/s"}, num: 1, den: 8},
		{names: []string{"B/s"}, num: 1, den: 1, print: "B/s"},
		{names: []string{"Kb/s"}, num: 1e3, den: 8},
		{names: []string{"KB/s"}, num: 1e3, den: 1, print: "KB/s"},
		{names: []string{"KiB/s"}, num: 1 << 10, den: 1, print: "KiB/s"},
		{names: []string{"Mb/s"}, num: 1e6, den: 8},
		{names: []string{"MB/s"}, num: 1e6, den: 1, print: "MB/s"},
		{names: []string{"MiB/s"}, num: 1 << 20, den: 1, print: "MiB/s"},
		{names: []string{"Gb/s"}, num: 1e9, den: 8},
		{names: []string{"GB/s"}, num: 1e9, den: 1, print: "GB/s"},
		{names: []string{"GiB/s"}, num: 1 << 30, den: 1, print: "GiB/s"},
		{names: []string{"Tb/s"}, num: 1e12, den: 8},
		{names: []string{"TB/s"}, num: 1e12, den: 1, print: "TB/s"},
		{names: []string{"TiB/s"}, num: 1 << 40, den: 1, print: "TiB/s"},
	},
}

const probHelp = "probability: a decimal in [0, 1] (0.25, 1e-3) or a percentage (25%), " +
	"at most 19 decimal places"

// String formats d exactly in the largest unit that needs the fewest digits,
// e.g. "1.5ns", "2us", "-3ns", "0s"; ParseDuration(d.String()) == d for
// every int64 value, including math.MinInt64.
func (d Duration) String() string { return durationQ.format(int64(d)) }

// MarshalText implements encoding.TextMarshaler using String.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler using ParseDuration.
func (d *Duration) UnmarshalText(b []byte) error { return unmarshalWith(d, b, ParseDuration) }

// ParseDuration parses a duration such as "5ns", "1.5us", "2e3 ps" or "0".
// Units: ps, ns, us (or µs), ms, s. The value must be a whole number of
// picoseconds within int64; a bare number is an error unless it is zero.
func ParseDuration(s string) (Duration, error) {
	v, err := durationQ.parse(s)
	return Duration(v), err
}

// String formats t like Duration.String, as the interval since time zero.
func (t Time) String() string { return timeQ.format(int64(t)) }

// MarshalText implements encoding.TextMarshaler using String.
func (t Time) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler using ParseTime.
func (t *Time) UnmarshalText(b []byte) error { return unmarshalWith(t, b, ParseTime) }

// ParseTime parses an absolute time with the syntax of ParseDuration.
func ParseTime(s string) (Time, error) {
	v, err := timeQ.parse(s)
	return Time(v), err
}

// String formats f exactly, e.g. "500MHz", "2.6GHz", "0Hz".
func (f Freq) String() string { return freqQ.format(int64(f)) }

// MarshalText implements encoding.TextMarshaler using String.
func (f Freq) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler using ParseFreq.
func (f *Freq) UnmarshalText(b []byte) error { return unmarshalWith(f, b, ParseFreq) }

// ParseFreq parses a frequency such as "500MHz" or "2.6 GHz". Units: Hz,
// kHz (or KHz), MHz, GHz. The value must be a whole number of hertz; a bare
// number is an error unless it is zero.
func ParseFreq(s string) (Freq, error) {
	v, err := freqQ.parse(s)
	return Freq(v), err
}

// Period returns the length of one cycle, 1e12/f picoseconds rounded to the
// nearest picosecond with halves away from zero (500MHz -> 2000ps,
// 2.6GHz -> 385ps). It returns 0 if f <= 0; Validate rejects such
// frequencies before use.
func (f Freq) Period() Duration { return f.Cycles(1) }

// Cycles returns the length of n cycles, n*1e12/f picoseconds rounded once to
// the nearest picosecond with halves away from zero. The product is exact in
// 128 bits, so 3 cycles at 2.6GHz are 1154ps, not 3*Period() = 1155ps.
// Results beyond int64 saturate at math.MaxInt64 or math.MinInt64. It
// returns 0 if f <= 0.
func (f Freq) Cycles(n int64) Duration {
	if f <= 0 {
		return 0
	}
	neg, mag := n < 0, absUint(n)
	hi, lo := bits.Mul64(mag, psPerSecond)
	fu := uint64(f)
	if hi >= fu {
		return saturateDuration(neg)
	}
	q, r := bits.Div64(hi, lo, fu)
	if r >= fu-r { // 2r >= f without overflowing: round half away from zero
		if q == math.MaxUint64 {
			return saturateDuration(neg)
		}
		q++
	}
	return signedDuration(q, neg)
}

// String formats b exactly in the binary unit (B, KiB, MiB, GiB, TiB) that
// needs the fewest digits, e.g. "64B", "1.5KiB", "384KiB", "1025B".
func (b Bytes) String() string { return bytesQ.format(int64(b)) }

// MarshalText implements encoding.TextMarshaler using String.
func (b Bytes) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler using ParseBytes.
func (b *Bytes) UnmarshalText(text []byte) error { return unmarshalWith(b, text, ParseBytes) }

// ParseBytes parses a size such as "64", "64B", "1.5K" or "384 KB". Units:
// B, K/KB/KiB (1024), M/MB/MiB (2^20), G/GB/GiB (2^30), T/TB/TiB (2^40); a
// bare number is bytes. The value must be a whole number of bytes.
func ParseBytes(s string) (Bytes, error) {
	v, err := bytesQ.parse(s)
	return Bytes(v), err
}

// String formats b exactly in the byte-rate unit (decimal or binary) that
// needs the fewest digits, preferring the larger unit on ties, e.g.
// "2.5GB/s", "1GiB/s", "0B/s". Bit units are accepted but never printed.
func (b Bandwidth) String() string { return bandwidthQ.format(int64(b)) }

// MarshalText implements encoding.TextMarshaler using String.
func (b Bandwidth) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler using ParseBandwidth.
func (b *Bandwidth) UnmarshalText(text []byte) error {
	return unmarshalWith(b, text, ParseBandwidth)
}

// ParseBandwidth parses a rate such as "2.5GB/s" or "10 Gb/s". Units: B/s,
// KB/s, MB/s, GB/s, TB/s (powers of 1000); KiB/s, MiB/s, GiB/s, TiB/s
// (powers of 1024); b/s, Kb/s, Mb/s, Gb/s, Tb/s (bits, powers of 1000). The
// value must be a whole number of bytes per second; a bare number is an
// error unless it is zero.
func ParseBandwidth(s string) (Bandwidth, error) {
	v, err := bandwidthQ.parse(s)
	return Bandwidth(v), err
}

// TransferTime returns the time to move n bytes at rate b, n*1e12/b
// picoseconds rounded up (a transfer is not over until its last byte is),
// computed exactly in 128 bits: 64B at 2.5GB/s is 25600ps, 1B at 3B/s is
// 333333333334ps. It returns 0 if n <= 0, and math.MaxInt64 ("never") if
// b <= 0 or the result does not fit in a Duration.
func (b Bandwidth) TransferTime(n Bytes) Duration {
	if n <= 0 {
		return 0
	}
	if b <= 0 {
		return math.MaxInt64
	}
	hi, lo := bits.Mul64(uint64(n), psPerSecond)
	bu := uint64(b)
	if hi >= bu {
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, bu)
	if r != 0 {
		if q == math.MaxUint64 {
			return math.MaxInt64
		}
		q++
	}
	return signedDuration(q, false)
}

// Prob is a probability held exactly as the decimal it was written as, and
// sampled with integers only (no floats in model decisions): Sample(u) is
// true for round(p·2^64) of the 2^64 values of u, and for all of them when p
// is exactly 1. The zero value is probability 0 (never). Text form: a decimal
// in [0, 1] with at most 19 decimal places ("0.25", "1e-3") or a percentage
// ("25%"). Compare Probs with ==.
type Prob struct {
	threshold uint64 // Sample is true when u < threshold; round(p·2^64)
	always    bool   // p == 1 exactly, because 2^64 does not fit in threshold
	mant      uint64 // p = mant / 10^scale, with no trailing zeros in mant
	scale     uint8
}

// ParseProb parses a probability such as "0.25", "1", "0", "1e-3" or "25%".
// Values outside [0, 1] and values finer than 1e-19 are errors.
func ParseProb(s string) (Prob, error) {
	p, reason := parseProb(strings.TrimSpace(s))
	if reason != "" {
		return Prob{}, fmt.Errorf("actors: invalid probability %q: %s", s, reason)
	}
	return p, nil
}

// MustParseProb is ParseProb for constant defaults in code; it panics if s
// is invalid, which a unit test of the defaults will catch.
func MustParseProb(s string) Prob {
	p, err := ParseProb(s)
	if err != nil {
		panic(err)
	}
	return p
}

// Sample reports whether an event of probability p happens, given u drawn
// uniformly from all uint64 values (e.g. ctx.Rand().Uint64()).
func (p Prob) Sample(u uint64) bool { return p.always || u < p.threshold }

// Float64 returns p as the nearest float64, for reports only.
func (p Prob) Float64() float64 {
	f, _ := strconv.ParseFloat(p.String(), 64)
	return f
}

// String returns p as a normalized plain decimal: "0", "1", "0.25", "0.001".
func (p Prob) String() string {
	switch {
	case p.always:
		return "1"
	case p.mant == 0:
		return "0"
	}
	digits := strconv.FormatUint(p.mant, 10)
	return "0." + strings.Repeat("0", int(p.scale)-len(digits)) + digits
}

// MarshalText implements encoding.TextMarshaler using String.
func (p Prob) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler using ParseProb.
func (p *Prob) UnmarshalText(b []byte) error { return unmarshalWith(p, b, ParseProb) }

// UnitsHelp describes the text form accepted for a value of v's type (or of
// the type v points to), e.g. "duration: ps, ns, us/µs/μs, ms, s", for
// listing parameters. It returns "" for types without units.
func UnitsHelp(v any) string {
	switch v.(type) {
	case Duration, *Duration:
		return durationQ.help()
	case Time, *Time:
		return timeQ.help()
	case Freq, *Freq:
		return freqQ.help()
	case Bytes, *Bytes:
		return bytesQ.help()
	case Bandwidth, *Bandwidth:
		return bandwidthQ.help()
	case Prob, *Prob:
		return probHelp
	}
	return ""
}

// unmarshalWith stores parse(text) in *dst, leaving *dst unchanged on error as
// encoding/json and flag do.
func unmarshalWith[T any](dst *T, text []byte, parse func(string) (T, error)) error {
	v, err := parse(string(text))
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// parse converts s to a count of base units, or returns an error naming s
// and what is accepted.
func (q *quantity) parse(s string) (int64, error) {
	v, reason := q.parseTrimmed(strings.TrimSpace(s))
	if reason != "" {
		return 0, fmt.Errorf("actors: invalid %s %q: %s", q.kind, s, reason)
	}
	return v, nil
}

// parseTrimmed returns the value of s, or a reason why s is invalid.
func (q *quantity) parseTrimmed(s string) (int64, string) {
	d, rest, reason := splitNumber(s, q.example)
	if reason != "" {
		return 0, reason
	}
	u, ok := q.lookup(rest)
	switch {
	case rest == "" && d.digits == "": // "0" needs no unit: zero of any unit
		return 0, ""
	case rest == "" && !q.bare:
		return 0, "missing unit (want " + q.unitList() + ")"
	case rest == "":
		u = q.units[0]
	case !ok:
		return 0, fmt.Sprintf("unknown unit %q (want %s)", rest, q.unitList())
	}
	v, err := d.scale(u.num, u.den)
	switch {
	case errors.Is(err, errUnitFraction):
		return 0, "not a whole number of " + q.base
	case err != nil:
		return 0, "out of range (the limit is ±2^63 " + q.base + ")"
	}
	return v, ""
}

// splitNumber splits s into its leading number and the unit after at most
// one space, or returns a reason why s does not start with a number.
func splitNumber(s, example string) (exactDecimal, string, string) {
	if s == "" {
		return exactDecimal{}, "", fmt.Sprintf("empty (want e.g. %q)", example)
	}
	if len(s) > maxInputLen {
		return exactDecimal{}, "", fmt.Sprintf("longer than %d bytes", maxInputLen)
	}
	d, n, ok := scanDecimal(s)
	if !ok {
		return exactDecimal{}, "", fmt.Sprintf("does not start with a decimal number (want e.g. %q)", example)
	}
	return d, strings.TrimPrefix(s[n:], " "), ""
}

// lookup finds the unit spelled name.
func (q *quantity) lookup(name string) (unit, bool) {
	for _, u := range q.units {
		for _, n := range u.names {
			if n == name {
				return u, true
			}
		}
	}
	return unit{}, false
}

// unitList lists every accepted unit, aliases joined by "/".
func (q *quantity) unitList() string {
	names := make([]string, len(q.units))
	for i, u := range q.units {
		names[i] = strings.Join(u.names, "/")
	}
	return strings.Join(names, ", ")
}

func (q *quantity) help() string {
	h := q.kind + ": " + q.unitList()
	if q.note != "" {
		h += " (" + q.note + ")"
	}
	return h
}

// format prints v exactly in the printable unit whose rendering has the
// fewest digits, preferring the larger unit on ties. Only units no larger
// than |v| compete, so the output never starts with "0.".
func (q *quantity) format(v int64) string {
	if v == 0 {
		return q.zero
	}
	mag := absUint(v)
	var best unit
	bestDigits := math.MaxInt
	for i := len(q.units) - 1; i >= 0; i-- {
		u := q.units[i]
		if u.print == "" || mag < uint64(u.num) {
			continue
		}
		if n := digitCount(mag, uint64(u.num)); n < bestDigits {
			best, bestDigits = u, n
		}
	}
	sign := ""
	if v < 0 {
		sign = "-"
	}
	return sign + formatFixed(mag, uint64(best.num)) + best.print
}

// digitCount is the number of digits formatFixed(mag, f) prints.
func digitCount(mag, f uint64) int {
	n := len(strconv.FormatUint(mag/f, 10))
	for r := mag % f; r != 0; r = r * 10 % f {
		n++
	}
	return n
}

// formatFixed prints mag/f as an exact decimal. It terminates because every
// printable unit is 2^a·5^b base units (a test checks this), and r*10 cannot
// overflow because f <= 2^40.
func formatFixed(mag, f uint64) string {
	var sb strings.Builder
	sb.WriteString(strconv.FormatUint(mag/f, 10))
	r := mag % f
	if r != 0 {
		sb.WriteByte('.')
	}
	for ; r != 0; r %= f {
		r *= 10
		sb.WriteByte(byte('0' + r/f))
	}
	return sb.String()
}

// exactDecimal is an exact decimal number (-1)^neg · digits · 10^exp as written in
// the input. digits has no leading or trailing zeros; "" means zero.
type exactDecimal struct {
	neg    bool
	digits string
	exp    int64
}

var (
	errUnitFraction = errors.New("not a whole number")
	errUnitRange    = errors.New("out of range")
)

// maxExpLiteral caps a written exponent; larger exponents are out of range
// for any input no longer than maxInputLen, so the cap changes no result.
const maxExpLiteral = 1_000_000

// scanDecimal reads the number at the start of s and returns it with the
// number of bytes it used; ok is false if s does not start with a number.
func scanDecimal(s string) (d exactDecimal, n int, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		d.neg = s[i] == '-'
		i++
	}
	intStart := i
	i = skipDigits(s, i)
	intPart, frac := s[intStart:i], ""
	if i < len(s) && s[i] == '.' {
		j := skipDigits(s, i+1)
		frac, i = s[i+1:j], j
	}
	if intPart == "" && frac == "" {
		return exactDecimal{}, 0, false
	}
	exp, i := scanExponent(s, i)
	all := strings.TrimLeft(intPart+frac, "0")
	d.digits = strings.TrimRight(all, "0")
	d.exp = exp - int64(len(frac)) + int64(len(all)-len(d.digits))
	if d.digits == "" {
		d = exactDecimal{} // -0 is 0
	}
	return d, i, true
}

// scanExponent reads an exponent "e-3" at s[i:]. An "e" without digits is
// not an exponent and is left for the unit.
func scanExponent(s string, i int) (exp int64, next int) {
	if i >= len(s) || (s[i] != 'e' && s[i] != 'E') {
		return 0, i
	}
	j := i + 1
	neg := j < len(s) && s[j] == '-'
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	end := skipDigits(s, j)
	if end == j {
		return 0, i
	}
	for _, c := range s[j:end] {
		exp = min(exp*10+int64(c-'0'), maxExpLiteral)
	}
	if neg {
		exp = -exp
	}
	return exp, end
}

func skipDigits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// scale returns d·num/den exactly, errUnitFraction if that is not an integer,
// or errUnitRange if it does not fit in an int64.
func (d exactDecimal) scale(num, den int64) (int64, error) {
	if d.digits == "" {
		return 0, nil
	}
	// |d| lies in [10^mag, 10^(mag+1)) and num/den in [1/8, 2^40], so the
	// result cannot fit above mag 40 and cannot be a nonzero integer below
	// mag -40; deciding these early bounds the size of 10^|exp| below.
	switch mag := int64(len(d.digits)) - 1 + d.exp; {
	case mag > 40:
		return 0, errUnitRange
	case mag < -40:
		return 0, errUnitFraction
	}
	n, _ := new(big.Int).SetString(d.digits, 10)
	n.Mul(n, big.NewInt(num))
	dv := big.NewInt(den)
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(max(d.exp, -d.exp)), nil)
	if d.exp >= 0 {
		n.Mul(n, pow)
	} else {
		dv.Mul(dv, pow)
	}
	quo, rem := n.QuoRem(n, dv, new(big.Int))
	if rem.Sign() != 0 {
		return 0, errUnitFraction
	}
	if d.neg {
		quo.Neg(quo)
	}
	if !quo.IsInt64() {
		return 0, errUnitRange
	}
	return quo.Int64(), nil
}

// parseProb returns the probability written in s, or a reason why s is
// invalid.
func parseProb(s string) (Prob, string) {
	d, rest, reason := splitNumber(s, "0.25")
	switch {
	case reason != "":
		return Prob{}, reason
	case rest == "%":
		d.exp -= 2
	case rest != "":
		return Prob{}, fmt.Sprintf("unknown suffix %q (want a decimal like 0.25 or a percentage like 25%%)", rest)
	}
	const outOfRange = "out of range (want a value in [0, 1])"
	switch {
	case d.digits == "":
		return Prob{}, ""
	case d.neg:
		return Prob{}, outOfRange
	case d.digits == "1" && d.exp == 0:
		return Prob{always: true, mant: 1}, ""
	case d.exp >= 0 || int64(len(d.digits)) > -d.exp:
		return Prob{}, outOfRange // digits has no trailing zeros, so d > 1
	case -d.exp > maxProbScale:
		return Prob{}, "finer than 1e-19 (want at most 19 decimal places)"
	}
	mant, _ := strconv.ParseUint(d.digits, 10, 64)
	scale := uint8(-d.exp)
	return Prob{threshold: probThreshold(mant, scale), mant: mant, scale: scale}, ""
}

// probThreshold returns round(mant/10^scale · 2^64) for mant < 10^scale,
// halves rounded up. It is at least 2 for mant > 0 because scale <= 19.
func probThreshold(mant uint64, scale uint8) uint64 {
	den := uint64(1)
	for range scale {
		den *= 10
	}
	q, r := bits.Div64(mant, 0, den)
	if r >= den-r && q < math.MaxUint64 {
		q++
	}
	return q
}

func absUint(v int64) uint64 {
	if v < 0 {
		return -uint64(v) // also right for math.MinInt64
	}
	return uint64(v)
}

// signedDuration returns ±q, saturating at the int64 limits.
func signedDuration(q uint64, neg bool) Duration {
	switch {
	case !neg && q > math.MaxInt64:
		return math.MaxInt64
	case neg && q > 1<<63:
		return math.MinInt64
	case neg:
		return Duration(-q)
	}
	return Duration(q)
}

// saturateDuration is the Duration nearest to ±infinity.
func saturateDuration(neg bool) Duration {
	if neg {
		return math.MinInt64
	}
	return math.MaxInt64
}
