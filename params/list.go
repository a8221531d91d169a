package params

import (
	"encoding"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// ParseList parses a list of values for key, as `run sweep --vary KEY=LIST` takes it:
// comma-separated items, each a value in the key's text form (as Set takes it) or,
// for numeric keys (duration, time, freq, size, bandwidth, prob, int, uint, float), a
// range:
//   - arithmetic "a:b:+d": a, a+d, a+2d, ... up to b, with a, b and d in the key's
//     units (250MHz:1GHz:+250MHz, 10:50:+10, 0.1:0.5:+0.1);
//   - geometric "a:b:xk": a, a*k, a*k^2, ... up to b, for a > 0 and a decimal
//     factor k > 1 (1us:1ms:x10, 1:64:x2).
//
// b is included when a step reaches it exactly. Arithmetic is exact: decimal, never
// binary floating point, so 0.1:0.5:+0.1 gives exactly 0.1 ... 0.5. Values of the
// integer-valued kinds (integers, and the unit types, which count ps, Hz, bytes and
// B/s) that a fractional factor makes fractional are rounded to the nearest. Sizes
// follow ParseSizes exactly (integer factors, 0:1M:x2 is 0, 1, 2, 4, ...).
//
// The values are returned in canonical text form (what Get returns after Set), in
// the order given; a value listed again is dropped. Lists are bounded by MaxListLen.
// Every error is an *Error naming the key: ErrUnknown for an unknown key (with
// suggestions), ErrInvalid for a malformed item, a value out of range, or a range
// of a key that is not numeric.
func (t *Tree) ParseList(key, list string) ([]string, error) {
	l, err := t.lookup(key)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(list) == "" {
		return nil, l.listError(list, "empty list (want values such as a,b,c or a range a:b:+d or a:b:xk)", nil)
	}
	var out []string
	seen := map[string]bool{}
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		var vals []string
		if strings.Contains(item, ":") && l.numeric() {
			vals, err = l.expandRange(item)
		} else {
			var v reflect.Value
			if v, err = l.parse(item); err == nil {
				vals = []string{textOf(v, l.Kind)}
			}
		}
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
		if len(out) > MaxListLen {
			return nil, l.listError(list, fmt.Sprintf("more than %d values", MaxListLen), nil)
		}
	}
	return out, nil
}

// numeric reports whether l's kind takes ranges.
func (l *leaf) numeric() bool {
	switch l.Kind {
	case KindBool, KindString, KindEnum:
		return false
	}
	return true
}

// textOf is the canonical text of v, a value of a field of the given kind.
func textOf(v reflect.Value, kind string) string {
	return (&leaf{Param: Param{Kind: kind}, v: v}).text()
}

func (l *leaf) listError(list, reason string, cause error) *Error {
	return &Error{kind: ErrInvalid, Key: l.Key, cause: cause, msg: fmt.Sprintf("%s: list %q: %s", l.Key, list, reason)}
}

func (l *leaf) rangeError(item, reason string, cause error) *Error {
	return &Error{kind: ErrInvalid, Key: l.Key, cause: cause, msg: fmt.Sprintf("%s: range %q: %s", l.Key, item, reason)}
}

// expandRange expands the range item "a:b:+d" or "a:b:xk" of a numeric key.
func (l *leaf) expandRange(item string) ([]string, error) {
	if l.Kind == KindSize {
		sizes, err := appendRange(nil, item)
		if err != nil {
			return nil, l.rangeError(item, strings.TrimPrefix(err.Error(), fmt.Sprintf("range %q: ", item)), err)
		}
		out := make([]string, len(sizes))
		for i, b := range sizes {
			v, err := l.parse(b.String())
			if err != nil {
				return nil, err
			}
			out[i] = textOf(v, l.Kind)
		}
		return out, nil
	}
	parts := strings.Split(item, ":")
	if len(parts) != 3 || len(parts[2]) < 2 || (parts[2][0] != '+' && parts[2][0] != 'x') {
		return nil, l.rangeError(item, "want a:b:+d (arithmetic) or a:b:xk (geometric)", nil)
	}
	lo, err := l.exact(parts[0])
	if err != nil {
		return nil, l.rangeError(item, "start: "+unprefixed(err, l.Key), err)
	}
	hi, err := l.exact(parts[1])
	if err != nil {
		return nil, l.rangeError(item, "end: "+unprefixed(err, l.Key), err)
	}
	if hi.Cmp(lo) < 0 {
		return nil, l.rangeError(item, "the end is below the start", nil)
	}
	geometric := parts[2][0] == 'x'
	var step *big.Rat
	if geometric {
		step, err = decimal(parts[2][1:])
		switch {
		case err != nil || step.Cmp(big.NewRat(1, 1)) <= 0:
			return nil, l.rangeError(item, fmt.Sprintf("factor %q: want x followed by a decimal number > 1", parts[2]), nil)
		case lo.Sign() <= 0:
			return nil, l.rangeError(item, "a geometric range needs a start > 0", nil)
		}
	} else {
		step, err = l.exact(parts[2][1:])
		if err != nil || step.Sign() <= 0 {
			return nil, l.rangeError(item, fmt.Sprintf("step %q: want + followed by a value > 0 in the key's units", parts[2]), err)
		}
	}
	if geometric {
		return l.geometric(item, lo, hi, step)
	}
	var out []string
	for v := new(big.Rat).Set(lo); v.Cmp(hi) <= 0; v.Add(v, step) {
		s, err := l.fromRat(v)
		if err != nil {
			return nil, l.rangeError(item, unprefixed(err, l.Key), err)
		}
		if out = append(out, s); len(out) > MaxListLen {
			return nil, l.rangeError(item, fmt.Sprintf("more than %d values", MaxListLen), nil)
		}
	}
	return out, nil
}

// geometricPrec is the precision in bits of the running value of a geometric
// range. Exact rationals would grow without bound under a fractional factor (x1.5
// has denominator 2^n after n steps); 256 bits hold every int64 exactly and keep
// the rounding error of 10^4 steps far below what the printed values show.
const geometricPrec = 256

// geometric expands a geometric range from lo to hi by factor k.
func (l *leaf) geometric(item string, lo, hi, k *big.Rat) ([]string, error) {
	newFloat := func(r *big.Rat) *big.Float { return new(big.Float).SetPrec(geometricPrec).SetRat(r) }
	v, factor := newFloat(lo), newFloat(k)
	// hi, with a tolerance so that a decimal end reached through rounded binary
	// products (0.1:0.9:x3) is included.
	tolerance := new(big.Float).SetPrec(geometricPrec).SetMantExp(big.NewFloat(1), -200)
	limit := newFloat(hi)
	limit.Add(limit, tolerance.Mul(tolerance, limit))
	var out []string
	for n := 0; v.Cmp(limit) <= 0; v.Mul(v, factor) {
		if n++; n > MaxListLen { // counts the values rounding merges, too
			return nil, l.rangeError(item, fmt.Sprintf("more than %d values", MaxListLen), nil)
		}
		r, _ := v.Rat(nil)
		s, err := l.fromRat(r)
		if err != nil {
			return nil, l.rangeError(item, unprefixed(err, l.Key), err)
		}
		if len(out) == 0 || out[len(out)-1] != s { // rounding may repeat a value
			out = append(out, s)
		}
	}
	return out, nil
}

// unprefixed is the message of err without the leading "key: ".
func unprefixed(err error, key string) string {
	return strings.TrimPrefix(err.Error(), key+": ")
}

// maxExponent bounds the decimal exponent decimal accepts, so that "1e99999999"
// is an error rather than a number of a hundred million digits.
const maxExponent = 400

// decimal parses a plain decimal number such as 1.5 or 2e3 (no units, no fractions
// a/b).
func decimal(s string) (*big.Rat, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("not a decimal number: %q", s)
	if strings.ContainsAny(s, "/_xXpP") || len(s) > 64 {
		return nil, bad
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, err := strconv.Atoi(s[i+1:])
		if err != nil || exp > maxExponent || exp < -maxExponent {
			return nil, bad
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, bad
	}
	return r, nil
}

// exact parses s as a value of l and returns it as an exact rational in the
// kind's base unit (ps, Hz, B/s, ...; probabilities and floats as decimals).
func (l *leaf) exact(s string) (*big.Rat, error) {
	v, err := l.parse(s)
	if err != nil {
		return nil, err
	}
	switch l.Kind {
	case KindUint:
		return new(big.Rat).SetUint64(v.Uint()), nil
	case KindProb:
		return decimal(v.Interface().(actors.Prob).String())
	case KindFloat:
		f := v.Float()
		if r, err := decimal(s); err == nil {
			if g, _ := r.Float64(); g == f {
				return r, nil // the decimal as written: 0.1 is exactly 1/10
			}
		}
		return new(big.Rat).SetFloat64(f), nil
	}
	return new(big.Rat).SetInt64(v.Int()), nil // int and the int64 unit types
}

// fromRat returns the canonical text of the value r of l (see exact), rounding
// to the nearest whole base unit for integer-valued kinds.
func (l *leaf) fromRat(r *big.Rat) (string, error) {
	var text string
	switch l.Kind {
	case KindProb:
		text = strings.TrimRight(strings.TrimRight(r.FloatString(19), "0"), ".")
	case KindFloat:
		f, _ := r.Float64()
		text = strconv.FormatFloat(f, 'g', -1, 64)
	default:
		n := roundRat(r)
		if l.Kind == KindInt || l.Kind == KindUint {
			text = n.String()
			break
		}
		if !n.IsInt64() {
			return "", fmt.Errorf("%s out of range", n)
		}
		nv := reflect.New(l.v.Type()).Elem()
		nv.SetInt(n.Int64())
		b, _ := nv.Interface().(encoding.TextMarshaler).MarshalText() // unit types never fail
		text = string(b)
	}
	v, err := l.parse(text)
	if err != nil {
		return "", err
	}
	return textOf(v, l.Kind), nil
}

// roundRat rounds r to the nearest integer, halves away from zero.
func roundRat(r *big.Rat) *big.Int {
	num, den := new(big.Int).Set(r.Num()), r.Denom()
	half := new(big.Int).Quo(den, big.NewInt(2))
	if num.Sign() < 0 {
		num.Sub(num, half)
	} else {
		num.Add(num, half)
	}
	return num.Quo(num, den)
}
