package params

import (
	"strings"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadYAML(t *testing.T) {
	cases := map[string]struct {
		doc  string
		want map[string]string
	}{
		"nested": {`
router:
  link_bandwidth: 5GB/s
  hop_cycles: 4
  link:
    latency: 20ns
phold:
  lps: 64
seed: 7
`, map[string]string{"router.link_bandwidth": "5GB/s", "router.hop_cycles": "4", "router.link.latency": "20ns",
			"phold.lps": "64", "seed": "7"}},
		"dotted": {`
router.link_bandwidth: 5GB/s
router.link.latency: 20ns
phold.remote: 50%
`, map[string]string{"router.link_bandwidth": "5GB/s", "router.link.latency": "20ns", "phold.remote": "0.5"}},
		"mixed": {`
router:
  link.latency: 20ns       # dotted inside a group
  hop_cycles: 4
router.link:               # a dotted group
  bandwidth: 1GB/s
phold.lps: 8
`, map[string]string{"router.link.latency": "20ns", "router.hop_cycles": "4", "router.link.bandwidth": "1GB/s",
			"phold.lps": "8"}},
		"scalars as text": {`
router:
  name: 'true'
  adaptive: false
  scale: 1e-3
  mode: accelerated
  buffer: 384 KB
  drop: 0.5
`, map[string]string{"router.name": "true", "router.adaptive": "false", "router.scale": "0.001",
			"router.mode": "accelerated", "router.buffer": "384KiB", "router.drop": "0.5"}},
		"block scalar": {"router:\n  name: |-\n    two\n    lines\n",
			map[string]string{"router.name": "two\nlines"}},
		"anchors": {`
router:
  link: &l {bandwidth: 4GB/s}
  delay: &d 5ns
  start: *d
`, map[string]string{"router.link.bandwidth": "4GB/s", "router.delay": "5ns", "router.start": "5ns"}},
		"null group":    {"router:\nphold: ~\n", map[string]string{}},
		"empty":         {"", map[string]string{}},
		"comments only": {"# nothing\n", map[string]string{}},
		"null document": {"~\n", map[string]string{}},
		"empty mapping": {"{}", map[string]string{}},
		"one document":  {"---\nseed: 3\n...\n", map[string]string{"seed": "3"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tr, _ := newTree(t)
			want := map[string]string{}
			for _, kv := range tr.Values() {
				want[kv.Key] = kv.Value
			}
			for k, v := range c.want {
				want[k] = v
			}
			require.NoError(t, tr.LoadYAML([]byte(c.doc)))
			got := map[string]string{}
			for _, kv := range tr.Values() {
				got[kv.Key] = kv.Value
			}
			assert.Equal(t, want, got)
		})
	}
}

func TestLoadYAMLBindsInPlace(t *testing.T) {
	tr, cfg := newTree(t)
	require.NoError(t, tr.LoadYAML([]byte("router: {link_bandwidth: 2.5GB/s, link.latency: 1us}\nphold.lps: 8\n")))
	assert.Equal(t, 2500*actors.MBPerSecond, cfg.Router.LinkBandwidth)
	assert.Equal(t, actors.Microsecond, cfg.Router.Link.Latency)
	assert.Equal(t, 8, cfg.PHOLD.LPs)
}

func TestLoadYAMLErrors(t *testing.T) {
	cases := map[string]struct {
		doc  string
		kind error
		want string
	}{
		"unknown nested": {"router:\n  hop_cycles: 4\n  link_bandwith: 1GB/s\n", ErrUnknown,
			`line 3: unknown parameter "router.link_bandwith" (did you mean router.link_bandwidth?)`},
		"unknown dotted": {"seed: 1\nrouter.link_bandwith: 1GB/s\n", ErrUnknown,
			`line 2: unknown parameter "router.link_bandwith" (did you mean router.link_bandwidth?)`},
		"unknown group": {"rooter:\n  hop_cycles: 4\n", ErrUnknown,
			`line 1: unknown parameter "rooter" (did you mean router?)`},
		"unknown mixed": {"router:\n  link.bandwith: 1GB/s\n", ErrUnknown,
			`line 2: unknown parameter "router.link.bandwith" (did you mean router.link.bandwidth?)`},
		"empty key": {"\"\": 1\n", ErrUnknown, `line 1: unknown parameter "": empty key`},
		"bad value": {"router:\n  link:\n    latency: 5 furlongs\n", ErrInvalid,
			`line 3: router.link.latency: invalid duration "5 furlongs": unknown unit "furlongs"`},
		"bad enum": {"router.mode: fast\n", ErrInvalid,
			`line 1: router.mode: invalid enum "fast": want generic or accelerated`},
		"null value": {"router.hop_cycles:\n", ErrInvalid,
			`line 1: router.hop_cycles: invalid int "": want a decimal integer such as 42`},
		"sequence value": {"router:\n  hop_cycles: [1, 2]\n", ErrInvalid,
			`line 2: router.hop_cycles: want a scalar value (int), got a sequence`},
		"mapping value": {"seed:\n  x: 1\n", ErrInvalid, `line 2: seed: want a scalar value (uint), got a mapping`},
		"scalar group": {"phold: 5\n", ErrInvalid,
			`line 1: phold: is a group: want a mapping of its keys, got the scalar "5"`},
		"sequence group": {"router:\n  link:\n    - 1\n", ErrInvalid,
			`line 3: router.link: is a group: want a mapping of its keys, got a sequence`},
		"duplicate key": {"seed: 1\nphold: {lps: 2}\nseed: 2\n", ErrInvalid,
			`line 3: duplicate key "seed" (first at line 1)`},
		"duplicate group": {"phold: {lps: 2}\nphold: {mean: 2ns}\n", ErrInvalid,
			`line 2: duplicate key "phold" (first at line 1)`},
		"duplicate nested": {"router:\n  hop_cycles: 1\n  hop_cycles: 2\n", ErrInvalid,
			`line 3: duplicate key "hop_cycles" in group router (first at line 2)`},
		"set twice": {"router:\n  hop_cycles: 1\nrouter.hop_cycles: 2\n", ErrInvalid,
			`line 3: router.hop_cycles: set twice (first at line 2)`},
		"set twice via groups": {"router:\n  link.latency: 1ns\nrouter.link:\n  latency: 2ns\n", ErrInvalid,
			`line 4: router.link.latency: set twice (first at line 2)`},
		"top-level scalar":   {"seed=1\n", ErrInvalid, `line 1: want a mapping of parameter keys at the top level, got the scalar "seed=1"`},
		"top-level sequence": {"- seed: 1\n", ErrInvalid, `line 1: want a mapping of parameter keys at the top level, got a sequence`},
		"syntax":             {"router:\n  hop_cycles: 1\n bad: [\n", ErrInvalid, `invalid YAML: line 2: did not find expected key`},
		"tab":                {"router:\n\thop_cycles: 1\n", ErrInvalid, `invalid YAML: line 2:`},
		"two documents":      {"seed: 1\n---\nseed: 2\n", ErrInvalid, `line 2: a second YAML document: want one mapping of parameters`},
		"merge key":          {"base: &b {lps: 1}\nphold:\n  <<: *b\n", ErrUnknown, `line 1: unknown parameter "base"`},
		"merge key in group": {"phold:\n  <<: {lps: 1}\n", ErrInvalid, `line 2: merge key << in group phold: not supported`},
		"mapping key":        {"? {a: 1}\n: 2\n", ErrInvalid, `line 1: want a parameter name as key, got a mapping`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tr, _ := newTree(t)
			before := tr.Values()
			err := tr.LoadYAML([]byte(c.doc))
			requireKind(t, err, c.kind)
			assert.Contains(t, err.Error(), c.want)
			if strings.HasPrefix(c.want, "line ") {
				assert.True(t, strings.HasPrefix(err.Error(), c.want), err.Error())
			}
			assert.Equal(t, before, tr.Values(), "a rejected document applies nothing")
		})
	}
}

// A rejected value later in the document leaves earlier, valid values unapplied.
func TestLoadYAMLAtomic(t *testing.T) {
	tr, cfg := newTree(t)
	err := tr.LoadYAML([]byte("router.hop_cycles: 9\nrouter.delay: 5\n"))
	requireKind(t, err, ErrInvalid)
	assert.Equal(t, 3, cfg.Router.HopCycles)
}

func TestMarshalYAML(t *testing.T) {
	type inner struct {
		B  actors.Duration `param:"b"`
		A2 int             `param:"a2"`
	}
	type root struct {
		Z  string          `param:"z"`
		A  inner           `param:"a"`
		A1 int             `param:"a_1"`
		AB actors.Bytes    `param:"ab"`
		D  actors.Duration `param:"d"`
	}
	r := root{Z: "", A: inner{B: 75 * actors.Nanosecond, A2: 2}, A1: 1, AB: 1024, D: actors.Microsecond}
	tr, err := New(&r)
	require.NoError(t, err)
	out, err := tr.MarshalYAML()
	require.NoError(t, err)
	// Keys sorted segment by segment: "a" (a group) < "a_1" < "ab".
	assert.Equal(t, `a:
  a2: 2
  b: 75ns
a_1: 1
ab: 1KiB
d: 1us
z: ""
`, string(out))
}

// MarshalYAML's output loads back to the same Values, for defaults and for values
// that need quoting.
func TestMarshalYAMLRoundTrip(t *testing.T) {
	names := []string{"", "~", "null", "true", "1", "a: b", "# not a comment", "- x", " lead", "trail ", "two\nlines",
		"trailing newline\n", "\ttab", "quote ' and \"", "{x}", "[1]", "&a", "*a", "!tag", "%", "@", "`", "é ü 日本",
		"\x00\x01", "\r\n", "\u2028", "---", "...", ">", "|", "0x10", "1e3", ".inf", "<<"}
	for _, name := range names {
		tr, _ := newTree(t)
		require.NoError(t, tr.ApplyArgs([]string{"router.name=" + name, "router.small=-128", "router.drop=1e-19",
			"seed=18446744073709551615", "router.mode=accelerated", "router.scale=0.1", "phold.fail_at=1.5ns"}))
		out, err := tr.MarshalYAML()
		require.NoError(t, err)
		fresh, _ := newTree(t)
		require.NoError(t, fresh.LoadYAML(out), "%q:\n%s", name, out)
		assert.Equal(t, tr.Values(), fresh.Values(), "%q:\n%s", name, out)
	}
}
