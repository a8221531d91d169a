package params

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseList(t *testing.T) {
	tr, _ := newTree(t)
	for _, c := range []struct{ key, list, want string }{
		{"router.clock", "250MHz,500MHz", "250MHz 500MHz"},
		{"router.clock", "0.25GHz, 1GHz", "250MHz 1GHz"},
		{"router.clock", "250MHz:1GHz:+250MHz", "250MHz 500MHz 750MHz 1GHz"},
		{"router.clock", "250MHz:1GHz:x2", "250MHz 500MHz 1GHz"},
		{"router.clock", "100MHz:1GHz:x1.5", "100MHz 150MHz 225MHz 337.5MHz 506.25MHz 759.375MHz"},
		{"router.delay", "1us:1ms:x10", "1us 10us 100us 1ms"},
		{"router.delay", "0:300ps:+100ps,50ps", "0s 100ps 200ps 300ps 50ps"},
		{"router.delay", "1ps:4ps:x1.2", "1ps 2ps 3ps 4ps"}, // rounded to whole picoseconds, repeats merged
		{"router.start", "0:2ns:+1ns", "0s 1ns 2ns"},
		{"router.buffer", "0:1K:x4", "0B 1B 4B 16B 64B 256B 1KiB"},
		{"router.buffer", "0:1K:+512", "0B 512B 1KiB"},
		{"router.link_bandwidth", "1GB/s:3GB/s:+1GB/s", "1GB/s 2GB/s 3GB/s"},
		{"router.drop", "0.1:0.5:+0.1", "0.1 0.2 0.3 0.4 0.5"},
		{"router.drop", "0.1:0.9:x3,25%", "0.1 0.3 0.9 0.25"},
		{"router.scale", "0.1:0.5:+0.1", "0.1 0.2 0.3 0.4 0.5"},
		{"router.scale", "0.1:0.9:x3", "0.1 0.3 0.9"},
		{"router.scale", "1e-3:1e-1:x10", "0.001 0.01 0.1"},
		{"router.hop_cycles", "1:10:+3", "1 4 7 10"},
		{"router.hop_cycles", "-2:2:+2", "-2 0 2"},
		{"router.hop_cycles", "1:8:x2,3,4", "1 2 4 8 3"}, // a repeated value is listed once
		{"router.ports", "1:3:+1", "1 2 3"},
		{"router.small", "100:127:+20", "100 120"},
		{"router.adaptive", "true,false", "true false"},
		{"router.mode", "accelerated,generic", "accelerated generic"},
		{"router.name", "a:b,c", "a:b c"}, // strings have no ranges
		{"seed", "1:3:+1", "1 2 3"},
	} {
		got, err := tr.ParseList(c.key, c.list)
		require.NoError(t, err, "%s=%s", c.key, c.list)
		assert.Equal(t, c.want, strings.Join(got, " "), "%s=%s", c.key, c.list)
		for _, v := range got { // canonical: Set then Get gives the value back
			require.NoError(t, tr.Set(c.key, v))
			back, err := tr.Get(c.key)
			require.NoError(t, err)
			assert.Equal(t, v, back)
		}
	}
}

func TestParseListErrors(t *testing.T) {
	tr, _ := newTree(t)
	before := tr.Values()
	for _, c := range []struct{ key, list, want string }{
		{"router.clok", "1GHz", `unknown parameter "router.clok" (did you mean router.clock?)`},
		{"router", "1", `unknown parameter "router": it is a group`},
		{"router.clock", "", `router.clock: list "": empty list`},
		{"router.clock", "1GHz,,2GHz", `router.clock: invalid frequency ""`},
		{"router.clock", "5 furlongs", `router.clock: invalid frequency "5 furlongs"`},
		{"router.clock", "1GHz:250MHz:+1MHz", `router.clock: range "1GHz:250MHz:+1MHz": the end is below the start`},
		{"router.clock", "1GHz:2GHz", `router.clock: range "1GHz:2GHz": want a:b:+d (arithmetic) or a:b:xk (geometric)`},
		{"router.clock", "1GHz:2GHz:*2", `want a:b:+d (arithmetic) or a:b:xk (geometric)`},
		{"router.clock", "1GHz:2GHz:+0Hz", `step "+0Hz": want + followed by a value > 0`},
		{"router.clock", "1GHz:2GHz:+1ns", `step "+1ns"`},
		{"router.clock", "1GHz:2GHz:x1", `factor "x1": want x followed by a decimal number > 1`},
		{"router.clock", "1GHz:2GHz:x1e99999999", `factor "x1e99999999"`},
		{"router.clock", "0Hz:2GHz:x2", `a geometric range needs a start > 0`},
		{"router.clock", "1Hz:1GHz:+1Hz", `more than 10000 values`},
		{"router.clock", "1Hz:1GHz:x1.0000001", `more than 10000 values`},
		{"router.clock", "bad:1GHz:+1Hz", `range "bad:1GHz:+1Hz": start: invalid frequency "bad"`},
		{"router.drop", "0.5:1.5:+0.5", `end: invalid probability "1.5"`},
		{"router.small", "100:200:+50", `router.small: range "100:200:+50": end: invalid int "200": out of range [-128, 127]`},
		{"router.hop_cycles", "1:2:+0.5", `step "+0.5"`},
		{"router.adaptive", "true:false:+1", `router.adaptive: invalid bool "true:false:+1"`},
		{"router.mode", "fast", `router.mode: invalid enum "fast": want generic or accelerated`},
		{"router.buffer", "0:1M:x1.5", `router.buffer: range "0:1M:x1.5": factor "x1.5": want x followed by an integer >= 2`},
		{"router.buffer", "0:1M:+1", `more than 10000`},
	} {
		_, err := tr.ParseList(c.key, c.list)
		require.Error(t, err, "%s=%s", c.key, c.list)
		assert.ErrorContains(t, err, c.want, "%s=%s", c.key, c.list)
		var pe *Error
		require.ErrorAs(t, err, &pe)
		assert.True(t, strings.HasPrefix(c.key, pe.Key), "%s: key %q", c.key, pe.Key)
	}
	assert.Equal(t, before, tr.Values(), "ParseList changes nothing")
	_, err := tr.ParseList("router.clok", "1GHz")
	requireKind(t, err, ErrUnknown)
	_, err = tr.ParseList("router.clock", "x")
	requireKind(t, err, ErrInvalid)
}

// FuzzParseList: no panic, bounded time and length; a rejection is an *Error naming
// the key; every value accepted is canonical (Set takes it and Get gives it back) and
// listed once.
func FuzzParseList(f *testing.F) {
	keys := []string{"router.clock", "router.delay", "router.start", "router.buffer", "router.link_bandwidth",
		"router.drop", "router.scale", "router.hop_cycles", "router.ports", "router.small", "router.adaptive",
		"router.mode", "router.name"}
	for i, s := range []string{"250MHz:1GHz:+250MHz", "1us:1ms:x10", "0:2ns:+1ns", "0:1K:x4", "1GB/s:3GB/s:+1GB/s",
		"0.1:0.9:x3,25%", "0.1:0.5:+0.1", "1:10:+3", "1:3:+1", "100:127:x1.1", "true,false", "generic", "a:b,c",
		"1e-3:1e-1:x10", "1:2:x1.0000001", "1e300:1e308:x1e2"} {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, k uint8, list string) {
		tr, _ := newTree(t)
		key := keys[int(k)%len(keys)]
		got, err := tr.ParseList(key, list)
		if err != nil {
			var pe *Error
			if !assert.ErrorAs(t, err, &pe) || pe.Key != key {
				t.Fatalf("%s=%q: error without the key: %v", key, list, err)
			}
			return
		}
		if len(got) == 0 || len(got) > MaxListLen {
			t.Fatalf("%s=%q: %d values", key, list, len(got))
		}
		seen := map[string]bool{}
		for _, v := range got {
			if seen[v] {
				t.Fatalf("%s=%q: %q listed twice", key, list, v)
			}
			seen[v] = true
			require.NoError(t, tr.Set(key, v), fmt.Sprintf("%s=%q", key, list))
			back, _ := tr.Get(key)
			require.Equal(t, v, back)
		}
	})
}
