package params

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzLoadYAML checks LoadYAML on arbitrary documents: no panic; a rejection is an
// ErrUnknown or ErrInvalid error that locates the problem (its line, or the YAML
// parser's message) and changes nothing; an accepted document leaves a tree whose
// MarshalYAML loads back to the same values. The seeds, one file each in
// testdata/fuzz/FuzzLoadYAML, are valid and invalid configurations; fuzz with
//
//	go test -run XXX -fuzz FuzzLoadYAML -fuzztime 30s ./params/
func FuzzLoadYAML(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, _ := newTree(t)
		before := tr.Values()
		err := tr.LoadYAML(data)
		if err != nil {
			if !errors.Is(err, ErrUnknown) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error matches neither sentinel: %v", err)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("not an *Error: %v", err)
			}
			// Every rejection locates the problem: a line, or the parser's own message.
			msg := err.Error()
			if !(pe.Line > 0 && strings.HasPrefix(msg, fmt.Sprintf("line %d: ", pe.Line))) &&
				!strings.HasPrefix(msg, "invalid YAML: ") {
				t.Fatalf("message has no line and is not a YAML syntax error: %q", msg)
			}
			require.Equal(t, before, tr.Values(), "a rejected document changed the tree: %v", err)
			return
		}
		out, err := tr.MarshalYAML()
		require.NoError(t, err)
		fresh, _ := newTree(t)
		require.NoError(t, fresh.LoadYAML(out), "%s", out)
		require.Equal(t, tr.Values(), fresh.Values(), "%s", out)
	})
}
