package ht

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params configures a Link. Start from DefaultParams; Validate before use.
type Params struct {
	// RawBandwidth is the raw signalling rate per direction.
	RawBandwidth actors.Bandwidth `param:"raw_bandwidth" help:"raw rate per direction (16-bit, 800 MHz DDR)" source:"Brightwell et al. 2005 s.2"`
	// PacketPayload is the largest payload of one HT packet.
	PacketPayload actors.Bytes `param:"packet_payload" help:"largest payload of one HT data packet" source:"HyperTransport 1.x: 64-byte data packets"`
	// PacketOverhead is the control, command and CRC bytes that accompany each packet;
	// 8 B on 64 B gives 64/72 of 3.2 GB/s = 2.84 GB/s payload, matching the 2.8 GB/s peak.
	PacketOverhead actors.Bytes `param:"packet_overhead" help:"command/control bytes per HT packet" source:"assumed: chosen so that payload peak is 2.8 GB/s (Brightwell et al. 2005 s.2)"`
	// Latency is the one-way latency of the link and the HT interfaces at both ends.
	Latency actors.Duration `param:"latency" help:"one-way link latency" source:"assumed"`
	// MemoryLatency is the time the host memory controller takes to serve a read.
	MemoryLatency actors.Duration `param:"memory_latency" help:"host memory access time seen by the link" source:"assumed (Opteron DDR)"`
	// SRAMLatency is the time the SeaStar takes to serve a host read of its SRAM or
	// registers (uncached MMIO).
	SRAMLatency actors.Duration `param:"sram_latency" help:"SeaStar SRAM access time seen by the link" source:"assumed"`
	// RequestBytes is the size of a read request packet.
	RequestBytes actors.Bytes `param:"request_bytes" help:"size of a read request on the link" source:"HyperTransport 1.x: 8-byte sized read request"`
}

// DefaultParams returns the Red Storm link (SeaStar 1.2 on a 2.0 GHz Opteron).
func DefaultParams() Params {
	return Params{
		RawBandwidth:   3200 * actors.MBPerSecond,
		PacketPayload:  64 * actors.Byte,
		PacketOverhead: 8 * actors.Byte,
		Latency:        100 * actors.Nanosecond,
		MemoryLatency:  100 * actors.Nanosecond,
		SRAMLatency:    30 * actors.Nanosecond,
		RequestBytes:   8 * actors.Byte,
	}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.RawBandwidth <= 0:
		return fmt.Errorf("raw_bandwidth must be > 0 (got %s)", p.RawBandwidth)
	case p.PacketPayload <= 0:
		return fmt.Errorf("packet_payload must be > 0 (got %s)", p.PacketPayload)
	case p.PacketOverhead < 0:
		return fmt.Errorf("packet_overhead must be >= 0 (got %s)", p.PacketOverhead)
	case p.Latency < 0:
		return fmt.Errorf("latency must be >= 0 (got %s)", p.Latency)
	case p.MemoryLatency < 0:
		return fmt.Errorf("memory_latency must be >= 0 (got %s)", p.MemoryLatency)
	case p.SRAMLatency < 0:
		return fmt.Errorf("sram_latency must be >= 0 (got %s)", p.SRAMLatency)
	case p.RequestBytes <= 0:
		return fmt.Errorf("request_bytes must be > 0 (got %s)", p.RequestBytes)
	}
	return nil
}

// PayloadBandwidth is the payload rate of a direction carrying full packets.
func (p Params) PayloadBandwidth() actors.Bandwidth {
	full := int64(p.PacketPayload)
	return actors.Bandwidth(int64(p.RawBandwidth) * full / (full + int64(p.PacketOverhead)))
}

// WireTime is how long n payload bytes occupy one direction of the link: whole HT
// packets of at most PacketPayload bytes, each with PacketOverhead extra bytes. Zero
// bytes still take one (control-only) packet.
func (p Params) WireTime(n actors.Bytes) actors.Duration {
	packets := max(1, (n+p.PacketPayload-1)/p.PacketPayload)
	return p.RawBandwidth.TransferTime(n + packets*p.PacketOverhead)
}
