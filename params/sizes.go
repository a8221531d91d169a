package params

import (
	"fmt"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// MaxListLen bounds the length of a size list, so that a typo such as 0:1T:+1 is an
// error rather than a billion simulations.
const MaxListLen = 10000

// ParseSizes parses a list of message sizes (docs/design.md section 8): comma-separated items,
// each a size ("0", "8", "1K", "64KiB"; binary multiples) or a range:
//   - geometric "a:b:xk": a, then max(a,1)*k, *k^2, ... up to b (0:2M:x2 is 0, 1, 2,
//     4, ..., 2M);
//   - arithmetic "a:b:+d": a, a+d, a+2d, ... up to b.
//
// Sizes keep the order given. Errors name the item.
func ParseSizes(s string) ([]actors.Bytes, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty size list (want e.g. 0,8,1K or 0:2M:x2)")
	}
	var out []actors.Bytes
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		var err error
		if strings.Contains(item, ":") {
			out, err = appendRange(out, item)
		} else {
			var b actors.Bytes
			b, err = parseSize(item)
			out = append(out, b)
		}
		if err != nil {
			return nil, err
		}
		if len(out) > MaxListLen {
			return nil, fmt.Errorf("size list %q has more than %d sizes", s, MaxListLen)
		}
	}
	return out, nil
}

func parseSize(s string) (actors.Bytes, error) {
	b, err := actors.ParseBytes(s)
	if err != nil {
		return 0, err
	}
	if b < 0 {
		return 0, fmt.Errorf("size %q is negative", s)
	}
	return b, nil
}

func appendRange(out []actors.Bytes, item string) ([]actors.Bytes, error) {
	parts := strings.Split(item, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("range %q: want a:b:xk (geometric) or a:b:+d (arithmetic)", item)
	}
	lo, err := parseSize(parts[0])
	if err != nil {
		return nil, fmt.Errorf("range %q: %w", item, err)
	}
	hi, err := parseSize(parts[1])
	if err != nil {
		return nil, fmt.Errorf("range %q: %w", item, err)
	}
	if hi < lo {
		return nil, fmt.Errorf("range %q: end %s is below start %s", item, hi, lo)
	}
	step := parts[2]
	switch {
	case strings.HasPrefix(step, "x"):
		var k int64
		if _, err := fmt.Sscanf(step[1:], "%d", &k); err != nil || k < 2 || fmt.Sprint(k) != step[1:] {
			return nil, fmt.Errorf("range %q: factor %q: want x followed by an integer >= 2", item, step)
		}
		out = append(out, lo)
		for v := max(lo, 1); v <= hi; v *= actors.Bytes(k) {
			if v != lo {
				out = append(out, v)
			}
			if len(out) > MaxListLen || v > hi/actors.Bytes(k) {
				break
			}
		}
	case strings.HasPrefix(step, "+"):
		d, err := parseSize(step[1:])
		if err != nil || d < 1 {
			return nil, fmt.Errorf("range %q: step %q: want + followed by a size >= 1", item, step)
		}
		for v := lo; v <= hi; v += d {
			out = append(out, v)
			if len(out) > MaxListLen || v > hi-d {
				break
			}
		}
	default:
		return nil, fmt.Errorf("range %q: step %q: want xk (geometric) or +d (arithmetic)", item, step)
	}
	return out, nil
}
