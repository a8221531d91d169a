// Package params is the parameter registry of the simulator: it turns the Params
// structs of the hardware blocks into one tree of dotted keys that `run params`
// lists, `--set KEY=VALUE` and `--config FILE` (YAML) edit, and run reports print.
//
// # Declaring parameters
//
// A block's configuration is a struct whose fields carry tags; DefaultParams returns
// its defaults and an optional Validate() error method checks it:
//
//	type Params struct {
//		LinkBandwidth actors.Bandwidth `param:"link_bandwidth" help:"payload bandwidth per direction of a torus link" source:"Brightwell 2005 s.2"`
//		HopCycles     int              `param:"hop_cycles" help:"router pipeline depth" source:"assumed"`
//		Mode          string           `param:"mode" enum:"generic|accelerated" help:"Portals processing" source:"assumed"`
//		Credits       CreditParams     `param:"credits"` // a group: keys credits.xxx
//	}
//
// The tag name is lower-case letters, digits and underscores; a field whose type is
// a struct (other than actors.Prob) is a group, and its fields' keys are prefixed
// with the group's name and a dot. Fields without a param tag, or with
// `param:"-"`, are ignored. Supported field types and their kinds (Param.Kind):
// actors.Duration (duration), actors.Time (time), actors.Freq (freq), actors.Bytes
// (size), actors.Bandwidth (bandwidth), actors.Prob (prob), signed integers (int),
// unsigned integers (uint), floats (float), bool (bool), and strings (string, or
// enum with an enum tag listing the accepted values).
//
// # Using a tree
//
// New binds a Tree to a pointer to the configuration, usually a struct with one
// group per block, built from the blocks' defaults:
//
//	cfg := struct {
//		Router router.Params `param:"router"`
//		PHOLD  phold.Params  `param:"phold"`
//	}{router.DefaultParams(), phold.DefaultParams()}
//	t, err := params.New(&cfg)
//	// ...
//	err = t.LoadYAML(configFile)                      // router: {link_bandwidth: 2.5GB/s}
//	err = t.ApplyArgs([]string{"router.hop_cycles=4"}) // --set flags, applied after the file
//	err = t.Validate()                                 // every block's Validate
//	// cfg.Router now holds the resolved configuration; t.Values() lists it.
//
// Values are written in the text form of their type, the one parser of package
// actors: "2.5GB/s", "75ns", "500MHz", "64B", "0.25". Every error of Set, Get,
// ApplyArgs and LoadYAML is an *Error naming the key (Validate joins one per
// problem); it matches ErrUnknown (no such key: the message suggests close keys,
// or lists a group's keys) or ErrInvalid (a bad value, with what was expected),
// and actors.ErrConfig.
//
// The package is deterministic model code: Params, Values and MarshalYAML list keys
// in sorted order, never in map order.
package params
