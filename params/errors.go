package params

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/seastar-sim/seastar/actors"
)

// Sentinels matched (with errors.Is) by every error of Set, Get, ApplyArgs,
// LoadYAML and Validate.
var (
	// ErrUnknown marks a key that names no parameter (a typo, or a group).
	ErrUnknown = errors.New("unknown parameter")
	// ErrInvalid marks a malformed or rejected value, a malformed --set item or YAML
	// document, and a configuration that a Validate method rejects.
	ErrInvalid = errors.New("invalid parameter value")
)

// Error is a configuration error about one key. It matches ErrUnknown or ErrInvalid,
// and actors.ErrConfig (so cmd/run reports it as a configuration error, exit status
// 2), and wraps the underlying error, if any: the unit parser's, or the one a
// Validate method returned.
type Error struct {
	Key  string // the parameter or group key, the offending --set item, or "" for malformed YAML
	Line int    // line in the YAML document, 0 if the error is not from LoadYAML

	kind  error // ErrUnknown or ErrInvalid
	msg   string
	cause error
}

// Error returns the message, prefixed with "line N: " if the error has a line.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.msg)
	}
	return e.msg
}

// Unwrap returns the sentinel (ErrUnknown or ErrInvalid) and the underlying error.
func (e *Error) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// Is reports whether target is actors.ErrConfig: every Error is a configuration error.
func (e *Error) Is(target error) bool { return target == actors.ErrConfig }

// atLine returns err with its YAML line set, if it is an *Error without one.
func atLine(err error, line int) error {
	var e *Error
	if line <= 0 || !errors.As(err, &e) || e.Line != 0 {
		return err
	}
	c := *e
	c.Line = line
	return &c
}

// invalidValue returns the ErrInvalid error for value, which is not a valid l.
func invalidValue(l *leaf, value, reason string) *Error {
	return &Error{kind: ErrInvalid, Key: l.Key, msg: fmt.Sprintf("%s: invalid %s %q: %s", l.Key, l.Kind, value, reason)}
}

// maxListed is how many keys an error lists for a group.
const maxListed = 8

// unknown returns the ErrUnknown error for key: what the group holds if key is a
// group, else up to three close keys.
func (t *Tree) unknown(key string) error {
	e := &Error{kind: ErrUnknown, Key: key}
	if g, ok := t.groups[key]; ok {
		keys := g.keys
		more := ""
		if len(keys) > maxListed {
			more = fmt.Sprintf(" and %d more", len(keys)-maxListed)
			keys = keys[:maxListed]
		}
		switch key {
		case "":
			e.msg = "unknown parameter \"\": empty key"
		default:
			e.msg = fmt.Sprintf("unknown parameter %q: it is a group; its keys are %s%s",
				key, strings.Join(keys, ", "), more)
		}
		return e
	}
	e.msg = fmt.Sprintf("unknown parameter %q", key)
	if s := t.Suggest(key); len(s) > 0 {
		e.msg += " (did you mean " + orList(s) + "?)"
	}
	return e
}

// maxSuggestions is how many keys Suggest returns at most.
const maxSuggestions = 3

// Suggest returns up to three parameter or group keys close to key, in key order:
// the closest by edit distance (optimal string alignment: insertions, deletions,
// substitutions and swaps of adjacent characters, ignoring case), compared on the
// full keys and on their last segments, if that distance is at most a third of the
// length compared (at least 1). The error for an unknown key lists them.
func (t *Tree) Suggest(key string) []string {
	q := strings.ToLower(key)
	last := lastSegment(q)
	best := -1
	var keys []string
	consider := func(c string) {
		d, ok := distance(q, c)
		if dl, okl := distance(last, lastSegment(c)); okl && (!ok || dl < d) {
			d, ok = dl, true
		}
		switch {
		case !ok || (best >= 0 && d > best):
			return
		case best < 0 || d < best:
			best, keys = d, keys[:0]
		}
		keys = append(keys, c)
	}
	for _, l := range t.leaves {
		consider(l.Key)
	}
	for _, g := range t.groupKeys[1:] { // skip the root
		consider(g)
	}
	slices.Sort(keys)
	return keys[:min(len(keys), maxSuggestions)]
}

// distance returns the optimal-string-alignment distance between a and b (in
// runes), and whether it is close: at most a third of a's length, or 1.
func distance(a, b string) (int, bool) {
	limit := max(1, utf8.RuneCountInString(a)/3)
	ra, rb := []rune(a), []rune(b)
	if abs(len(ra)-len(rb)) > limit { // a lower bound: long inputs stop here
		return 0, false
	}
	// d[i][j] is the distance between ra[:i] and rb[:j]; three rows suffice.
	w := len(rb) + 1
	prev2, prev, cur := make([]int, w), make([]int, w), make([]int, w)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	d := prev[len(rb)]
	return d, d <= limit
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// orList joins items as "a", "a or b", "a, b or c".
func orList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
