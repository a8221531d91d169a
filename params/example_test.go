package params_test

import (
	"errors"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/params"
)

// RouterParams is a block's configuration, with a group.
type RouterParams struct {
	LinkBandwidth actors.Bandwidth `param:"link_bandwidth" help:"payload bandwidth per direction of a torus link" source:"Brightwell 2005 s.2"`
	HopCycles     int              `param:"hop_cycles" help:"router pipeline depth" source:"assumed"`
	Mode          string           `param:"mode" enum:"generic|accelerated" help:"Portals processing" source:"assumed"`
	Buffer        BufferParams     `param:"buffer"`
}

// BufferParams is a group of RouterParams.
type BufferParams struct {
	Size actors.Bytes `param:"size" help:"input buffer per virtual channel" source:"assumed"`
}

func DefaultRouterParams() RouterParams {
	return RouterParams{LinkBandwidth: 2500 * actors.MBPerSecond, HopCycles: 3, Mode: "generic",
		Buffer: BufferParams{Size: 256}}
}

func ExampleTree_Set() {
	cfg := struct {
		Router RouterParams `param:"router"`
	}{DefaultRouterParams()}
	t, err := params.New(&cfg)
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Set("router.link_bandwidth", "10Gb/s"), cfg.Router.LinkBandwidth)
	err = t.Set("router.link_bandwith", "1GB/s")
	fmt.Println(errors.Is(err, params.ErrUnknown), err)
	err = t.Set("router.link_bandwidth", "5 furlongs")
	fmt.Println(errors.Is(err, params.ErrInvalid), err)
	err = t.Set("router.mode", "fast")
	fmt.Println(err)
	// Output:
	// <nil> 1.25GB/s
	// true unknown parameter "router.link_bandwith" (did you mean router.link_bandwidth?)
	// true router.link_bandwidth: invalid bandwidth "5 furlongs": unknown unit "furlongs" (want b/s, B/s, Kb/s, KB/s, KiB/s, Mb/s, MB/s, MiB/s, Gb/s, GB/s, GiB/s, Tb/s, TB/s, TiB/s)
	// router.mode: invalid enum "fast": want generic or accelerated
}

func ExampleTree_LoadYAML() {
	cfg := struct {
		Router RouterParams `param:"router"`
	}{DefaultRouterParams()}
	t, _ := params.New(&cfg)
	err := t.LoadYAML([]byte(`
router:
  hop_cycles: 4
  buffer.size: 1KiB
router.mode: accelerated
`))
	fmt.Println(err)
	for _, kv := range t.Values() {
		fmt.Println(kv.Key, "=", kv.Value)
	}
	fmt.Println(t.LoadYAML([]byte("router:\n  hop_cycles: 4\n  hop_cycles: 5\n")))
	// Output:
	// <nil>
	// router.buffer.size = 1KiB
	// router.hop_cycles = 4
	// router.link_bandwidth = 2.5GB/s
	// router.mode = accelerated
	// line 3: duplicate key "hop_cycles" in group router (first at line 2)
}

func ExampleTree_MarshalYAML() {
	cfg := struct {
		Router RouterParams `param:"router"`
	}{DefaultRouterParams()}
	t, _ := params.New(&cfg)
	_ = t.ApplyArgs([]string{"router.hop_cycles=5"})
	out, _ := t.MarshalYAML()
	fmt.Print(string(out))
	// Output:
	// router:
	//   buffer:
	//     size: 256B
	//   hop_cycles: 5
	//   link_bandwidth: 2.5GB/s
	//   mode: generic
}

func ExampleTree_Params() {
	cfg := struct {
		Router RouterParams `param:"router"`
	}{DefaultRouterParams()}
	t, _ := params.New(&cfg)
	_ = t.Set("router.hop_cycles", "5")
	for _, p := range t.Params() {
		fmt.Printf("%s %s default=%s value=%s source=%q\n", p.Key, p.Kind, p.Default, p.Value, p.Source)
	}
	// Output:
	// router.buffer.size size default=256B value=256B source="assumed"
	// router.hop_cycles int default=3 value=5 source="assumed"
	// router.link_bandwidth bandwidth default=2.5GB/s value=2.5GB/s source="Brightwell 2005 s.2"
	// router.mode enum default=generic value=generic source="assumed"
}

func ExampleTree_Validate() {
	cfg := struct {
		Router RouterParams `param:"router"`
	}{DefaultRouterParams()}
	t, _ := params.New(&cfg)
	cfg.Router.Mode = "turbo"
	fmt.Println(t.Validate())
	// Output:
	// router.mode: invalid enum "turbo": want generic or accelerated
}
