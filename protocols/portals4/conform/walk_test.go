package conform

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// A repeat of elements that take no simulated time (comments here) never returns to
// the engine, which checks the run's context between windows only: the interpreter
// asks stop between iterations and ends the rank with its error, having run only the
// iterations before.
func TestRepeatAsksStop(t *testing.T) {
	root, err := Parse([]byte(`<test><repeat count="1000000000"><comment/></repeat></test>`))
	require.NoError(t, err)
	asked := 0
	stop := func() error {
		if asked++; asked == 3 {
			return errors.New("context deadline exceeded")
		}
		return nil
	}
	got := RunRank(root, nil, nil, stop)
	require.Equal(t, "line 1 <repeat>: stopped after 2048 of 1000000000 iterations: context deadline exceeded", got)
	require.Equal(t, 3, asked)

	root, err = Parse([]byte(`<test><repeat count="5000"><comment/></repeat></test>`))
	require.NoError(t, err)
	require.Empty(t, RunRank(root, nil, nil, func() error { return nil }), "a stop that never says so changes nothing")
}
