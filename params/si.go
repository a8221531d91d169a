package params

import (
	"strconv"

	"github.com/seastar-sim/seastar/actors"
)

// SI returns the value text of a parameter of kind in its base SI unit, for results
// tables and plots: durations and times in seconds ("s"), frequencies in hertz ("Hz"),
// sizes in bytes ("B"), bandwidths in bytes per second ("B/s"), probabilities as a
// fraction ("1"), integers as counts ("count"), floats as themselves (""). Booleans,
// strings and enums are not numbers: ok is false. The text is the value's canonical
// decimal form (exact for the integer kinds: 250MHz is "250000000").
func SI(kind, text string) (value, unit string, ok bool) {
	unit = SIUnit(kind)
	switch kind {
	case KindDuration:
		d, err := actors.ParseDuration(text)
		return seconds(int64(d)), unit, err == nil
	case KindTime:
		t, err := actors.ParseTime(text)
		return seconds(int64(t)), unit, err == nil
	case KindFreq:
		f, err := actors.ParseFreq(text)
		return strconv.FormatInt(int64(f), 10), unit, err == nil
	case KindSize:
		b, err := actors.ParseBytes(text)
		return strconv.FormatInt(int64(b), 10), unit, err == nil
	case KindBandwidth:
		b, err := actors.ParseBandwidth(text)
		return strconv.FormatInt(int64(b), 10), unit, err == nil
	case KindProb:
		p, err := actors.ParseProb(text)
		return strconv.FormatFloat(p.Float64(), 'g', -1, 64), unit, err == nil
	case KindInt, KindUint:
		_, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			_, err = strconv.ParseUint(text, 10, 64)
		}
		return text, unit, err == nil
	case KindFloat:
		f, err := strconv.ParseFloat(text, 64)
		return strconv.FormatFloat(f, 'g', -1, 64), unit, err == nil
	}
	return "", "", false
}

// SIUnit is the base SI unit SI gives values of kind in ("" for a float or a kind
// that is not a number).
func SIUnit(kind string) string {
	switch kind {
	case KindDuration, KindTime:
		return "s"
	case KindFreq:
		return "Hz"
	case KindSize:
		return "B"
	case KindBandwidth:
		return "B/s"
	case KindProb:
		return "1"
	case KindInt, KindUint:
		return "count"
	}
	return ""
}

// seconds prints ps picoseconds as seconds, exactly (a decimal with up to 12
// fractional digits, trailing zeros dropped).
func seconds(ps int64) string {
	neg := ps < 0
	if neg {
		ps = -ps
	}
	whole, frac := ps/1_000_000_000_000, ps%1_000_000_000_000
	s := strconv.FormatInt(whole, 10)
	if frac != 0 {
		f := strconv.FormatInt(frac+1_000_000_000_000, 10)[1:]
		for f[len(f)-1] == '0' {
			f = f[:len(f)-1]
		}
		s += "." + f
	}
	if neg {
		s = "-" + s
	}
	return s
}
