package actors

import (
	"strconv"
	"strings"
	"testing"
)

// The fuzzers check the parser contract on arbitrary text: no panic; an
// accepted value prints as text that parses back to the same value; a
// rejected input gets a message that quotes it. Seeds live in
// testdata/fuzz/FuzzXxx; run one with
//
//	go test -run XXX -fuzz FuzzParseDuration -fuzztime 20s ./actors/

// checkUnitParse applies the contract to one input.
func checkUnitParse[T comparable](t *testing.T, s string, parse func(string) (T, error), str func(T) string) {
	t.Helper()
	v, err := parse(s)
	if err != nil {
		if msg := err.Error(); !strings.Contains(msg, strconv.Quote(s)) {
			t.Fatalf("error for %q does not quote the input: %q", s, msg)
		}
		return
	}
	text := str(v)
	back, err := parse(text)
	if err != nil {
		t.Fatalf("%q parsed, but its String %q does not: %v", s, text, err)
	}
	if back != v {
		t.Fatalf("%q parsed as %v, but its String %q parses as %v", s, v, text, back)
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0", "5ns", "1.5us", "2e3 ps", "-3ms", "1.5ps", "5 furlongs", "1e400s", "µs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkUnitParse(t, s, ParseDuration, Duration.String)
		checkUnitParse(t, s, ParseTime, Time.String)
		d, errD := ParseDuration(s)
		tm, errT := ParseTime(s)
		if (errD == nil) != (errT == nil) || int64(d) != int64(tm) {
			t.Fatalf("%q: ParseDuration = %v, %v but ParseTime = %v, %v", s, d, errD, tm, errT)
		}
	})
}

func FuzzParseFreq(f *testing.F) {
	for _, s := range []string{"0", "500MHz", "2.6 GHz", "10KHz", "1e9Hz", "0.5Hz", "500"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkUnitParse(t, s, ParseFreq, Freq.String)
	})
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"0", "64", "64B", "1.5K", "384 KB", "1GiB", "0.5B", "8EiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkUnitParse(t, s, ParseBytes, Bytes.String)
	})
}

func FuzzParseBandwidth(f *testing.F) {
	for _, s := range []string{"0", "2.5GB/s", "10 Gb/s", "1KiB/s", "8b/s", "1b/s", "100"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkUnitParse(t, s, ParseBandwidth, Bandwidth.String)
	})
}

func FuzzParseProb(f *testing.F) {
	for _, s := range []string{"0", "1", "0.25", "25%", "1e-3", "1e-20", "1.5", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkUnitParse(t, s, ParseProb, Prob.String)
	})
}
