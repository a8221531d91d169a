package rawdma

import "github.com/seastar-sim/seastar/machine"

func machinePreset(name string) (machine.Params, error) { return machine.Preset(name) }
