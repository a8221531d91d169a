package conform

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCNumbers(t *testing.T) {
	require.Equal(t, int64(0x5555), strtoll("0x5555"))
	require.Equal(t, int64(8), strtoll("010"))
	require.Equal(t, int64(-3), strtoll(" -3junk"))
	require.Equal(t, int64(0), strtoll("INTERRUPTED"))
	require.Equal(t, int64(9223372036854775807), strtoll("99999999999999999999"))
	require.Equal(t, uint64(0xffffffffffffffff), strtoull("-1"))
	require.InDelta(t, 0.25, strtod("0.25xyz"), 0)
	require.InDelta(t, 1.5e-3, strtod("1.5e-3"), 0)
	re, im := complexPair("(1.5, -2)")
	require.Equal(t, [2]float64{1.5, -2}, [2]float64{re, im})
}

func TestParseKeepsAttributeOrder(t *testing.T) {
	n, err := Parse([]byte(`<?xml version="1.0"?><test><ptl_md type="DOUBLE" md_data="1.5"/></test>`))
	require.NoError(t, err)
	require.Equal(t, "type", n.Children[0].Attrs[0].Name.Local)
	_, err = Parse([]byte(`<other/>`))
	require.ErrorContains(t, err, "want <test>")
	_, err = Parse([]byte(`<test><a></test>`))
	require.Error(t, err)
	_, err = Parse([]byte("<test>\n<ptl>"))
	require.EqualError(t, err, "XML syntax error on line 2: unexpected EOF", "the syntax error's own line, named once")
}
