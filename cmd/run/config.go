package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/seastar-sim/seastar/actors/phold"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/params"
	"github.com/seastar-sim/seastar/protocols/cci"
	"github.com/seastar-sim/seastar/protocols/funi"
	"github.com/seastar-sim/seastar/protocols/mpi"
	"github.com/seastar-sim/seastar/protocols/portals3"
	"github.com/seastar-sim/seastar/protocols/portals4"
	"github.com/seastar-sim/seastar/protocols/rawdma"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Config is every parameter of `run`: the machine, whose keys sit at the top level as
// docs/design.md section 8 names them (machine, router.link_bandwidth, ppc.clock, ...), and the
// benchmarks' own groups.
type Config struct {
	machine.Params
	PHOLD    phold.Params    `param:"phold"`
	RawDMA   rawdma.Costs    `param:"rawdma"`
	Portals  portals3.Params `param:"portals"`
	MPI      mpi.Params      `param:"mpi"`
	CCI      cci.Params      `param:"cci"`
	Portals4 portals4.Params `param:"portals4"`
	FUNI     funi.Params     `param:"funi"`
}

// defaultConfig returns the defaults over machine preset.
func defaultConfig(preset string) (*Config, error) {
	mp, err := machine.Preset(preset)
	if err != nil {
		return nil, err
	}
	return &Config{Params: mp, PHOLD: phold.DefaultParams(), RawDMA: rawdma.DefaultCosts(), Portals: portals3.DefaultParams(),
		MPI: mpi.DefaultParams(), CCI: cci.DefaultParams(), Portals4: portals4.DefaultParams(), FUNI: funi.DefaultParams()}, nil
}

// keyAnnotation binds a command-line flag to a configuration key: an explicit flag
// overrides --set and the configuration file.
const keyAnnotation = "config-key"

// bindKey binds flag name of fs to key.
func bindKey(fs *pflag.FlagSet, name, key string) {
	if err := fs.SetAnnotation(name, keyAnnotation, []string{key}); err != nil {
		panic(err) // a programming error: the flag does not exist
	}
}

// load resolves the configuration of cmd: see resolve; the flags of cmd bound to
// keys apply.
func (c *common) load(cmd *cobra.Command) (*Config, *params.Tree, error) {
	file, err := c.configFile()
	if err != nil {
		return nil, nil, err
	}
	return c.resolve(file, []*pflag.FlagSet{cmd.Flags()}, nil)
}

// configFile returns the contents of the --config file, nil without one.
func (c *common) configFile() ([]byte, error) {
	if c.configContent != nil {
		if !setsAnything(c.configContent) {
			return nil, usage(errors.New("the coordinator's configuration sets no parameter (it is empty or only comments)"))
		}
		return c.configContent, nil
	}
	if c.config == "" {
		return nil, nil
	}
	b, err := os.ReadFile(c.config)
	if err != nil {
		return nil, usage(fmt.Errorf("--config: %w", err))
	}
	if !setsAnything(b) {
		return nil, usage(fmt.Errorf("--config %s: the file sets no parameter (it is empty or only comments); "+
			"give a YAML file of parameters, such as a results directory's config.yaml", c.config))
	}
	return b, nil
}

// configName names the configuration in errors: the --config file, or the
// coordinator's for a worker.
func (c *common) configName() string {
	if c.configContent != nil {
		return "(the coordinator's configuration)"
	}
	return c.config
}

// setsAnything reports whether a YAML file has a line that is not blank or a comment.
func setsAnything(b []byte) bool {
	for line := range strings.SplitSeq(string(b), "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") && t != "---" {
			return true
		}
	}
	return false
}

// resolve builds a configuration. Precedence: the overrides over (a sweep point's
// values) > the flags of flagSets bound to keys > --set > the --config file (its
// contents) > the defaults of the machine preset, which is itself taken from the
// overrides, else --set machine=..., else the file's machine key, else the
// benchmark's preset (c.preset), else redstorm. The
// tree returned is bound to the Config, which is validated.
func (c *common) resolve(file []byte, flagSets []*pflag.FlagSet, over []params.KV) (*Config, *params.Tree, error) {
	preset := "redstorm"
	if c.preset != "" {
		preset = c.preset
	}
	if file != nil {
		cfg, _, err := c.apply(preset, file, nil, nil, nil)
		if err != nil {
			return nil, nil, err
		}
		preset = cfg.Machine
	}
	for _, s := range c.sets {
		if k, v, ok := strings.Cut(s, "="); ok && strings.TrimSpace(k) == "machine" {
			preset = strings.TrimSpace(v)
		}
	}
	for _, kv := range over {
		if kv.Key == "machine" {
			preset = kv.Value
		}
	}
	return c.apply(preset, file, c.sets, flagSets, over)
}

// apply builds the configuration over preset and applies the file, the --set items,
// the bound flags of flagSets and the overrides, then validates it.
func (c *common) apply(preset string, file []byte, sets []string, flagSets []*pflag.FlagSet, over []params.KV) (*Config, *params.Tree, error) {
	cfg, err := defaultConfig(preset)
	if err != nil {
		return nil, nil, usage(fmt.Errorf("machine: %w", err))
	}
	t, err := params.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	if file != nil {
		if err := t.LoadYAML(file); err != nil {
			return nil, nil, usage(fmt.Errorf("--config %s: %w", c.configName(), err))
		}
	}
	if err := t.ApplyArgs(sets); err != nil {
		return nil, nil, usage(fmt.Errorf("--set: %w", err))
	}
	var ferr error
	for _, fs := range flagSets {
		fs.Visit(func(f *pflag.Flag) {
			if keys := f.Annotations[keyAnnotation]; len(keys) == 1 && ferr == nil {
				if err := t.Set(keys[0], f.Value.String()); err != nil {
					ferr = usage(fmt.Errorf("--%s: %w", f.Name, err))
				}
			}
		})
	}
	if ferr != nil {
		return nil, nil, ferr
	}
	for _, kv := range over {
		if err := t.Set(kv.Key, kv.Value); err != nil {
			return nil, nil, usage(fmt.Errorf("--vary: %w", err))
		}
	}
	if err := t.Validate(); err != nil {
		return nil, nil, usage(err)
	}
	return cfg, t, nil
}
