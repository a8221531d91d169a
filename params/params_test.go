package params

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/phold"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// linkParams is a group with a value-receiver Validate whose message starts with
// the group's name, as blocks write them.
type linkParams struct {
	Bandwidth actors.Bandwidth `param:"bandwidth" help:"payload bandwidth per direction" source:"Brightwell 2005 s.2"`
	Latency   actors.Duration  `param:"latency" help:"wire latency" source:"assumed"`
}

func (p linkParams) Validate() error {
	if p.Bandwidth <= 0 {
		return fmt.Errorf("link: bandwidth must be > 0 (got %s)", p.Bandwidth)
	}
	return nil
}

// routerParams has a field of every kind, a nested group, ignored fields and a
// pointer-receiver Validate.
type routerParams struct {
	LinkBandwidth actors.Bandwidth `param:"link_bandwidth" help:"payload bandwidth per direction of a torus link" source:"Brightwell 2005 s.2"`
	HopCycles     int              `param:"hop_cycles" help:"router pipeline depth" source:"assumed"`
	Clock         actors.Freq      `param:"clock" help:"router clock"`
	Buffer        actors.Bytes     `param:"buffer" help:"input buffer"`
	Drop          actors.Prob      `param:"drop" help:"drop probability"`
	Start         actors.Time      `param:"start" help:"start time"`
	Delay         actors.Duration  `param:"delay" help:"extra delay"`
	Ports         uint16           `param:"ports" help:"port count"`
	Small         int8             `param:"small" help:"a small int"`
	Scale         float64          `param:"scale" help:"a factor"`
	Adaptive      bool             `param:"adaptive" help:"adaptive routing"`
	Name          string           `param:"name" help:"a label"`
	Mode          string           `param:"mode" enum:"generic|accelerated" help:"Portals processing"`
	Link          linkParams       `param:"link"`
	Ignored       int              `param:"-"`
	Untagged      int
}

func (p *routerParams) Validate() error {
	if p.HopCycles < 1 {
		return fmt.Errorf("hop_cycles must be >= 1 (got %d)", p.HopCycles)
	}
	return nil
}

// config is a sample root: groups and a root-level parameter, with a root Validate.
type config struct {
	Router routerParams `param:"router"`
	PHOLD  phold.Params `param:"phold"`
	Seed   uint64       `param:"seed" help:"root seed"`
}

func (c config) Validate() error {
	if c.Seed == 13 {
		return errors.New("seed 13 is unlucky")
	}
	return nil
}

func defaultConfig() config {
	return config{
		Router: routerParams{
			LinkBandwidth: 2500 * actors.MBPerSecond, HopCycles: 3, Clock: 500 * actors.Megahertz,
			Buffer: 64, Drop: actors.MustParseProb("0.25"), Start: 0, Delay: 75 * actors.Nanosecond,
			Ports: 7, Small: -3, Scale: 1.5, Adaptive: true, Name: "seastar", Mode: "generic",
			Link: linkParams{Bandwidth: 3 * actors.GBPerSecond, Latency: 10 * actors.Nanosecond},
		},
		PHOLD: phold.DefaultParams(),
		Seed:  1,
	}
}

func newTree(t testing.TB) (*Tree, *config) {
	t.Helper()
	cfg := defaultConfig()
	tr, err := New(&cfg)
	require.NoError(t, err)
	return tr, &cfg
}

// requireKind checks that err is a configuration error of the given kind
// (ErrUnknown or ErrInvalid) and not of the other.
func requireKind(t *testing.T, err error, kind error) {
	t.Helper()
	require.Error(t, err)
	assert.ErrorIs(t, err, kind)
	assert.ErrorIs(t, err, actors.ErrConfig)
	other := ErrInvalid
	if kind == ErrInvalid {
		other = ErrUnknown
	}
	assert.NotErrorIs(t, err, other)
}

func TestParams(t *testing.T) {
	tr, _ := newTree(t)
	ps := tr.Params()
	var keys []string
	for _, p := range ps {
		keys = append(keys, p.Key)
	}
	assert.Equal(t, []string{
		"phold.end", "phold.fail_at", "phold.lookahead", "phold.lps", "phold.mean", "phold.remote", "phold.start_events",
		"router.adaptive", "router.buffer", "router.clock", "router.delay", "router.drop", "router.hop_cycles",
		"router.link.bandwidth", "router.link.latency", "router.link_bandwidth", "router.mode", "router.name",
		"router.ports", "router.scale", "router.small", "router.start", "seed",
	}, keys)
	byKey := map[string]Param{}
	for _, p := range ps {
		byKey[p.Key] = p
	}
	assert.Equal(t, Param{Key: "router.link_bandwidth", Kind: "bandwidth", Unit: actors.UnitsHelp(actors.Bandwidth(0)),
		Default: "2.5GB/s", Value: "2.5GB/s", Help: "payload bandwidth per direction of a torus link",
		Source: "Brightwell 2005 s.2"}, byKey["router.link_bandwidth"])
	assert.Equal(t, Param{Key: "router.mode", Kind: "enum", Default: "generic", Value: "generic",
		Help: "Portals processing", Enum: []string{"generic", "accelerated"}}, byKey["router.mode"])
	kinds := map[string]string{
		"router.delay": "duration", "router.start": "time", "router.clock": "freq", "router.buffer": "size",
		"router.link_bandwidth": "bandwidth", "router.drop": "prob", "router.hop_cycles": "int", "router.small": "int",
		"router.ports": "uint", "seed": "uint", "router.scale": "float", "router.adaptive": "bool",
		"router.name": "string", "router.mode": "enum",
	}
	for k, want := range kinds {
		assert.Equal(t, want, byKey[k].Kind, k)
		assert.Equal(t, byKey[k].Unit != "", strings.Contains("duration time freq size bandwidth prob", want), k)
	}
	defaults := map[string]string{
		"router.delay": "75ns", "router.start": "0s", "router.clock": "500MHz", "router.buffer": "64B",
		"router.drop": "0.25", "router.hop_cycles": "3", "router.small": "-3", "router.ports": "7",
		"router.scale": "1.5", "router.adaptive": "true", "router.name": "seastar", "phold.lps": "1024",
		"phold.remote": "0.25", "phold.end": "10us", "seed": "1",
	}
	for k, want := range defaults {
		assert.Equal(t, want, byKey[k].Default, k)
	}
	// Params returns copies: editing them does not change the tree.
	ps[0].Enum = append(ps[0].Enum, "x")
	byKey["router.mode"].Enum[0] = "changed"
	assert.Equal(t, []string{"generic", "accelerated"}, paramOf(t, tr, "router.mode").Enum)
}

func TestNewErrors(t *testing.T) {
	type inner struct {
		X int `param:"x"`
	}
	type custom struct{ v int } // a struct with its own text form
	cases := map[string]struct {
		root any
		want []string
	}{
		"not a pointer": {struct{}{}, []string{"pointer to a struct", "struct {}"}},
		"nil pointer":   {(*config)(nil), []string{"non-nil pointer"}},
		"not a struct":  {new(int), []string{"*int"}},
		"upper case": {&struct {
			A int `param:"Lps"`
		}{}, []string{"field .A", `"Lps"`, "malformed"}},
		"dotted": {&struct {
			A int `param:"a.b"`
		}{}, []string{"field .A", `"a.b"`}},
		"empty": {&struct {
			A int `param:""`
		}{}, []string{"field .A", `""`}},
		"unexported": {&struct {
			a int `param:"a"`
		}{}, []string{"field .a", "unexported"}},
		"duplicate": {&struct {
			A int `param:"a"`
			B int `param:"a"`
		}{}, []string{"field .B", "also the tag of field .A"}},
		"slice": {&struct {
			A []int `param:"a"`
		}{}, []string{"field .A", "unsupported type []int"}},
		"pointer": {&struct {
			A *int `param:"a"`
		}{}, []string{"field .A", "unsupported type *int"}},
		"text type": {&struct {
			A textType `param:"a"`
		}{}, []string{"field .A", "own text form"}},
		"enum on int": {&struct {
			A int `param:"a" enum:"x|y"`
		}{}, []string{"field .A", "enum tag on a field of kind int"}},
		"enum repeated": {&struct {
			A string `param:"a" enum:"x|x"`
		}{}, []string{"field .A", "repeated"}},
		"enum empty": {&struct {
			A string `param:"a" enum:"x||y"`
		}{}, []string{"field .A", "empty"}},
		"enum on group": {&struct {
			A inner `param:"a" enum:"x"`
		}{}, []string{"field .A", "enum tag on a group"}},
		"nested problem": {&struct {
			G struct {
				B []int `param:"b"`
			} `param:"g"`
		}{}, []string{"field .G.B", "(g.b)"}},
		"custom struct": {&struct{ C custom }{}, nil}, // untagged: fine
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := New(c.root)
			if c.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// textType has its own text form, which the registry does not take over.
type textType int

func (t *textType) UnmarshalText([]byte) error { return nil }

func TestSetKinds(t *testing.T) {
	type tc struct {
		key, in, want string   // want: Get after Set
		errHas        []string // if not nil, Set fails with a message containing these
	}
	cases := []tc{
		{"router.link_bandwidth", "2.5GB/s", "2.5GB/s", nil},
		{"router.link_bandwidth", "10Gb/s", "1.25GB/s", nil},
		{"router.link_bandwidth", "5 furlongs", "", []string{`router.link_bandwidth: invalid bandwidth "5 furlongs": unknown unit "furlongs" (want b/s, B/s`}},
		{"router.link_bandwidth", "", "", []string{`router.link_bandwidth: invalid bandwidth "": empty`}},
		{"router.delay", "75ns", "75ns", nil},
		{"router.delay", "0.1us", "100ns", nil},
		{"router.delay", "1.5ps", "", []string{`router.delay: invalid duration "1.5ps": not a whole number of picoseconds`}},
		{"router.delay", "75", "", []string{`router.delay: invalid duration "75": missing unit (want ps, ns`}},
		{"router.start", "1us", "1us", nil},
		{"router.start", "soon", "", []string{`router.start: invalid time "soon"`}},
		{"router.clock", "500MHz", "500MHz", nil},
		{"router.clock", "2.6 GHz", "2.6GHz", nil},
		{"router.clock", "500mhz", "", []string{`router.clock: invalid frequency "500mhz": unknown unit "mhz"`}},
		{"router.buffer", "64B", "64B", nil},
		{"router.buffer", "384 KB", "384KiB", nil},
		{"router.buffer", "64", "64B", nil},
		{"router.buffer", "0.5B", "", []string{`router.buffer: invalid size "0.5B"`}},
		{"router.drop", "0.25", "0.25", nil},
		{"router.drop", "25%", "0.25", nil},
		{"router.drop", "1.5", "", []string{`router.drop: invalid probability "1.5"`}},
		{"router.hop_cycles", "4", "4", nil},
		{"router.hop_cycles", " 4 ", "4", nil},
		{"router.hop_cycles", "-9223372036854775808", "-9223372036854775808", nil},
		{"router.hop_cycles", "9223372036854775808", "", []string{`router.hop_cycles: invalid int "9223372036854775808": out of range [-9223372036854775808, 9223372036854775807]`}},
		{"router.hop_cycles", "4.0", "", []string{`router.hop_cycles: invalid int "4.0": want a decimal integer such as 42`}},
		{"router.hop_cycles", "0x10", "", []string{`invalid int "0x10"`}},
		{"router.small", "-128", "-128", nil},
		{"router.small", "128", "", []string{`router.small: invalid int "128": out of range [-128, 127]`}},
		{"router.ports", "65535", "65535", nil},
		{"router.ports", "65536", "", []string{`router.ports: invalid uint "65536": out of range [0, 65535]`}},
		{"router.ports", "-1", "", []string{`router.ports: invalid uint "-1": want a decimal integer >= 0`}},
		{"seed", "18446744073709551615", "18446744073709551615", nil},
		{"seed", "18446744073709551616", "", []string{`seed: invalid uint "18446744073709551616": out of range [0, 18446744073709551615]`}},
		{"router.scale", "0.1", "0.1", nil},
		{"router.scale", "1e-3", "0.001", nil},
		{"router.scale", "NaN", "", []string{`router.scale: invalid float "NaN": not a finite number`}},
		{"router.scale", "-Inf", "", []string{`not a finite number`}},
		{"router.scale", "1e999", "", []string{`router.scale: invalid float "1e999": out of range`}},
		{"router.scale", "half", "", []string{`router.scale: invalid float "half": want a decimal number`}},
		{"router.adaptive", "false", "false", nil},
		{"router.adaptive", "1", "true", nil},
		{"router.adaptive", "0", "false", nil},
		{"router.adaptive", "TRUE", "true", nil},
		{"router.adaptive", "yes", "", []string{`router.adaptive: invalid bool "yes": want true, false, 1 or 0`}},
		{"router.name", " spaced out ", " spaced out ", nil},
		{"router.name", "", "", nil},
		{"router.name", "\xff", "", []string{`router.name: invalid string "\xff": not valid UTF-8`}},
		{"router.mode", "accelerated", "accelerated", nil},
		{"router.mode", "fast", "", []string{`router.mode: invalid enum "fast": want generic or accelerated`}},
		{"router.mode", "Generic", "", []string{`invalid enum "Generic"`}},
		{"router.link.latency", "5ns", "5ns", nil},
		{"phold.remote", "0.5", "0.5", nil},
	}
	for _, c := range cases {
		t.Run(c.key+"="+c.in, func(t *testing.T) {
			tr, _ := newTree(t)
			before := tr.Values()
			err := tr.Set(c.key, c.in)
			if c.errHas != nil {
				requireKind(t, err, ErrInvalid)
				for _, w := range c.errHas {
					assert.Contains(t, err.Error(), w)
				}
				var pe *Error
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, c.key, pe.Key)
				assert.Equal(t, before, tr.Values(), "a rejected Set changes nothing")
				return
			}
			require.NoError(t, err)
			got, err := tr.Get(c.key)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

// The unit parser's error stays reachable under the Error.
func TestSetWrapsParserError(t *testing.T) {
	tr, _ := newTree(t)
	err := tr.Set("router.delay", "5 furlongs")
	requireKind(t, err, ErrInvalid)
	_, perr := actors.ParseDuration("5 furlongs")
	var pe *Error
	require.ErrorAs(t, err, &pe)
	causes := pe.Unwrap()
	require.Len(t, causes, 2)
	assert.Equal(t, perr.Error(), causes[1].Error())
}

// Set modifies the bound struct in place, through groups and value receivers.
func TestSetBindsInPlace(t *testing.T) {
	tr, cfg := newTree(t)
	require.NoError(t, tr.Set("router.link_bandwidth", "5GB/s"))
	require.NoError(t, tr.Set("router.link.latency", "1us"))
	require.NoError(t, tr.Set("phold.lps", "64"))
	require.NoError(t, tr.Set("router.mode", "accelerated"))
	require.NoError(t, tr.Set("router.drop", "0.5"))
	assert.Equal(t, 5*actors.GBPerSecond, cfg.Router.LinkBandwidth)
	assert.Equal(t, actors.Microsecond, cfg.Router.Link.Latency)
	assert.Equal(t, 64, cfg.PHOLD.LPs)
	assert.Equal(t, "accelerated", cfg.Router.Mode)
	assert.Equal(t, actors.MustParseProb("0.5"), cfg.Router.Drop)
	// and Get reads the struct, so direct edits show.
	cfg.Router.HopCycles = 9
	v, err := tr.Get("router.hop_cycles")
	require.NoError(t, err)
	assert.Equal(t, "9", v)
}

func TestUnknownKeys(t *testing.T) {
	cases := map[string]string{
		"router.link_bandwith":  `unknown parameter "router.link_bandwith" (did you mean router.link_bandwidth?)`,
		"link_bandwith":         `unknown parameter "link_bandwith" (did you mean router.link_bandwidth?)`,
		"rooter.link_bandwidth": `unknown parameter "rooter.link_bandwidth" (did you mean router.link_bandwidth?)`,
		"router.lps":            `unknown parameter "router.lps" (did you mean phold.lps?)`,
		"phodl":                 `unknown parameter "phodl" (did you mean phold?)`,
		"router.link.latncy":    `unknown parameter "router.link.latncy" (did you mean router.link.latency?)`,
		"latency":               `unknown parameter "latency" (did you mean router.link.latency?)`,
		"router.start_event":    `unknown parameter "router.start_event" (did you mean phold.start_events?)`,
		"router.mod":            `unknown parameter "router.mod" (did you mean router.mode?)`,
		"router.links":          `unknown parameter "router.links" (did you mean router.link?)`,
		"bandwidth":             `unknown parameter "bandwidth" (did you mean router.link.bandwidth?)`,
		"start":                 `unknown parameter "start" (did you mean router.start?)`,
		"end":                   `unknown parameter "end" (did you mean phold.end?)`,
		"phold.pls":             `unknown parameter "phold.pls" (did you mean phold.lps?)`,
		"furlongs":              `unknown parameter "furlongs"`,
		"phold.lps.x":           `unknown parameter "phold.lps.x" (did you mean phold.lps?)`,
		"":                      `unknown parameter "": empty key`,
		"router.link":           `unknown parameter "router.link": it is a group; its keys are router.link.bandwidth, router.link.latency`,
		"router":                `unknown parameter "router": it is a group; its keys are router.adaptive, router.buffer, router.clock, router.delay, router.drop, router.hop_cycles, router.link.bandwidth, router.link.latency and 7 more`,
		"Router.Link_Bandwidth": `unknown parameter "Router.Link_Bandwidth" (did you mean router.link_bandwidth?)`,
		"a":                     `unknown parameter "a"`,
	}
	tr, _ := newTree(t)
	for key, want := range cases {
		t.Run(key, func(t *testing.T) {
			err := tr.Set(key, "1")
			requireKind(t, err, ErrUnknown)
			assert.Equal(t, want, err.Error())
			var pe *Error
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, key, pe.Key)
			_, gerr := tr.Get(key)
			assert.Equal(t, err.Error(), gerr.Error())
		})
	}
	assert.Empty(t, tr.Suggest(strings.Repeat("x", 100000)), "long input is cheap and matches nothing")
}

// Default is the value at New time; Value follows Set.
func TestDefaultsCapturedAtNew(t *testing.T) {
	tr, cfg := newTree(t)
	require.NoError(t, tr.Set("router.hop_cycles", "8"))
	p := paramOf(t, tr, "router.hop_cycles")
	assert.Equal(t, "3", p.Default)
	assert.Equal(t, "8", p.Value)
	// A tree built on the modified struct takes its values as defaults.
	tr2, err := New(cfg)
	require.NoError(t, err)
	p = paramOf(t, tr2, "router.hop_cycles")
	assert.Equal(t, "8", p.Default)
	assert.Equal(t, "8", p.Value)
}

func paramOf(t *testing.T, tr *Tree, key string) Param {
	t.Helper()
	for _, p := range tr.Params() {
		if p.Key == key {
			return p
		}
	}
	t.Fatalf("no %s", key)
	return Param{}
}

// Set(key, Get(key)) is the identity for every parameter, at the defaults and at
// values that stress the printers.
func TestSetGetIdentity(t *testing.T) {
	tr, _ := newTree(t)
	edits := [][2]string{
		{"router.link_bandwidth", "1023B/s"}, {"router.delay", "-1ps"}, {"router.start", "9223372036854775807ps"},
		{"router.clock", "1Hz"}, {"router.buffer", "1025B"}, {"router.drop", "1e-19"}, {"router.scale", "0.1"},
		{"router.small", "-128"}, {"seed", "18446744073709551615"}, {"router.name", "a: b # c\n"},
		{"router.mode", "accelerated"}, {"router.adaptive", "false"}, {"phold.remote", "1"},
	}
	for round := range 2 {
		for _, p := range tr.Params() {
			before := tr.Values()
			v, err := tr.Get(p.Key)
			require.NoError(t, err)
			require.NoError(t, tr.Set(p.Key, v), p.Key)
			assert.Equal(t, before, tr.Values(), "round %d: %s=%q", round, p.Key, v)
		}
		for _, e := range edits {
			require.NoError(t, tr.Set(e[0], e[1]))
		}
	}
}

func TestValues(t *testing.T) {
	tr, _ := newTree(t)
	vs := tr.Values()
	require.Len(t, vs, len(tr.Params()))
	assert.Equal(t, KV{Key: "phold.end", Value: "10us"}, vs[0])
	assert.Equal(t, KV{Key: "seed", Value: "1"}, vs[len(vs)-1])
	for i, p := range tr.Params() {
		assert.Equal(t, KV{p.Key, p.Value}, vs[i])
	}
}

func TestValidate(t *testing.T) {
	tr, cfg := newTree(t)
	require.NoError(t, tr.Validate())

	require.NoError(t, tr.Set("phold.lps", "0"))
	err := tr.Validate()
	requireKind(t, err, ErrInvalid)
	assert.Equal(t, "phold: lps must be >= 1 (got 0)", err.Error(), "the block's own prefix is not repeated")
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "phold", pe.Key)

	require.NoError(t, tr.Set("router.link.bandwidth", "0"))
	require.NoError(t, tr.Set("router.hop_cycles", "0"))
	require.NoError(t, tr.Set("seed", "13"))
	cfg.Router.Mode = "turbo" // a direct edit bypassing Set
	err = tr.Validate()
	requireKind(t, err, ErrInvalid)
	assert.Equal(t, strings.Join([]string{
		`router.mode: invalid enum "turbo": want generic or accelerated`,
		`seed 13 is unlucky`,
		`phold: lps must be >= 1 (got 0)`,
		`router: hop_cycles must be >= 1 (got 0)`,
		`router.link: bandwidth must be > 0 (got 0B/s)`,
	}, "\n"), err.Error())
}

func TestApplyArgs(t *testing.T) {
	tr, cfg := newTree(t)
	require.NoError(t, tr.ApplyArgs([]string{"router.hop_cycles=5", " router.name = a=b", "router.hop_cycles=6"}))
	assert.Equal(t, 6, cfg.Router.HopCycles, "later items win")
	assert.Equal(t, " a=b", cfg.Router.Name, "the value is everything after the first =")
	require.NoError(t, tr.ApplyArgs(nil))

	before := tr.Values()
	err := tr.ApplyArgs([]string{"router.hop_cycles=7", "router.hop_cycles"})
	requireKind(t, err, ErrInvalid)
	assert.Equal(t, `invalid setting "router.hop_cycles": want key=value`, err.Error())
	err = tr.ApplyArgs([]string{"router.hop_cycles=7", "router.link_bandwith=1GB/s"})
	requireKind(t, err, ErrUnknown)
	assert.Contains(t, err.Error(), "did you mean router.link_bandwidth?")
	err = tr.ApplyArgs([]string{"router.hop_cycles=7", "router.delay=5"})
	requireKind(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), `router.delay: invalid duration "5"`)
	assert.Equal(t, before, tr.Values(), "a failed ApplyArgs applies nothing")
}

// A Validate method that checks its groups itself does not report their errors
// twice.
func TestValidateNoRepeats(t *testing.T) {
	tr, err := New(&outer{Inner: linkParams{Latency: 1}})
	require.NoError(t, err)
	err = tr.Validate()
	requireKind(t, err, ErrInvalid)
	assert.Equal(t, "inner: link: bandwidth must be > 0 (got 0B/s)", err.Error())

	o := &outer{Inner: linkParams{Bandwidth: 1}, Other: -1}
	tr, err = New(o)
	require.NoError(t, err)
	assert.Equal(t, "other must be >= 0", tr.Validate().Error(), "the outer struct's own errors stay")
}

// outer validates its group, as machine.Params does.
type outer struct {
	Inner linkParams `param:"inner"`
	Other int        `param:"other"`
}

func (o outer) Validate() error {
	if err := o.Inner.Validate(); err != nil {
		return fmt.Errorf("inner.%w", err)
	}
	if o.Other < 0 {
		return errors.New("other must be >= 0")
	}
	return nil
}

type EmbeddedInner struct {
	A int `param:"a" help:"a"`
}

func (e EmbeddedInner) Validate() error {
	if e.A < 0 {
		return errors.New("a must be >= 0")
	}
	return nil
}

// An embedded struct without a param tag is flattened into its group, and its
// Validate method validates the group.
func TestEmbeddedStructsAreFlattened(t *testing.T) {
	root := &struct {
		EmbeddedInner
		B int `param:"b" help:"b"`
	}{}
	tr, err := New(root)
	require.NoError(t, err)
	var keys []string
	for _, p := range tr.Params() {
		keys = append(keys, p.Key)
	}
	assert.Equal(t, []string{"a", "b"}, keys)
	require.NoError(t, tr.Set("a", "-1"))
	assert.ErrorContains(t, tr.Validate(), "a must be >= 0")
	dup := &struct {
		EmbeddedInner
		A2 int `param:"a" help:"a"`
	}{}
	_, err = New(dup)
	assert.ErrorContains(t, err, `param "a" is also the tag of field`)
}
