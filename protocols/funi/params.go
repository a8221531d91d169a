package funi

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params are the FUNI firmware's and the JAM library's costs and sizes. Start from
// DefaultParams; Validate before use. The costs marked "calibrated" are set in
// calibration.go, the one place where the model is fitted to measured figures.
type Params struct {
	// Queues and buffers.
	Slots       int             `param:"slots" help:"message slots of each of the four queues (Tx and Rx, two priorities) in host memory" source:"assumed: 32"`
	SlotBytes   actors.Bytes    `param:"slot_bytes" help:"bytes of a message slot: header word, handler or segment word, up to 20 argument words" source:"Hoe & Ehrlich 1996 s.3.1: each slot holds the largest message; s.1: <= 80 bytes of payload"`
	SendBuffers int             `param:"send_buffers" help:"packets the firmware keeps in local DRAM until they are acknowledged (sender buffering)" source:"assumed: 16"`
	FrameBytes  actors.Bytes    `param:"frame_bytes" help:"FUNI header of a network packet: source, destination, GID, round, sequence, type, length" source:"assumed: 8 (two words)"`
	AckBytes    actors.Bytes    `param:"ack_bytes" help:"bytes of an acknowledgement, negative acknowledgement or restart packet" source:"assumed: 8 (two words)"`
	RetryDelay  actors.Duration `param:"retry_delay" help:"wait before a negatively acknowledged packet is sent again" source:"assumed: 20 us, about one message occupancy"`
	GIDQuantum  actors.Duration `param:"gid_quantum" help:"time slice of each application when two GIDs share the nodes (run bench funi --pattern gids)" source:"assumed: 1 ms"`

	// Firmware costs, i960 instructions.
	TxInstr    int `param:"fw_tx_instr" help:"firmware instructions to take a message from a Tx queue and send it: slot and index bookkeeping, packet header, GID, round and sequence, sender buffer" source:"calibrated"`
	RxInstr    int `param:"fw_rx_instr" help:"firmware instructions to take an arriving payload packet: GID, round and queue checks, deposit into the Rx queue, valid bit and head index" source:"assumed: 200"`
	AckInstr   int `param:"fw_ack_instr" help:"firmware instructions to compose and send an acknowledgement" source:"assumed: 60"`
	AckRxInstr int `param:"fw_ack_rx_instr" help:"firmware instructions to take an acknowledgement: find and free the buffered packet" source:"calibrated"`
	DMAInstr   int `param:"fw_dma_instr" help:"firmware instructions per packet of a remote DMA transfer (packetization, reassembly)" source:"assumed: 100"`
	ShmInstr   int `param:"fw_shm_instr" help:"firmware instructions of a shared-memory miss: query the ACD, find the home node, send the request; or serve it at the home" source:"assumed: 150"`

	// Host (JAM library) costs.
	SendFixed  actors.Duration `param:"jam_send" help:"host time of a JAM_4-style send besides its slot stores: free-slot check, header composition, head index store issue" source:"calibrated"`
	SendNExtra actors.Duration `param:"jam_send_n_extra" help:"extra host time of the JAM_n argument loop" source:"calibrated"`
	SlotStore  actors.Duration `param:"jam_slot_store" help:"host time per word stored into a Tx slot: the card's coherent read left the line shared, so the store is written through on the Pentium's bus" source:"calibrated"`
	RecvFixed  actors.Duration `param:"jam_recv" help:"host time to take a message besides its cache misses: decode the header, call the handler, release the slot (tail store, valid bit)" source:"calibrated"`
	RecvNExtra actors.Duration `param:"jam_recv_n_extra" help:"extra host time of JAM_n's variable-length handler call" source:"calibrated"`
	RecvArg    actors.Duration `param:"jam_recv_arg" help:"host time per argument word passed to a JAM_n handler" source:"calibrated"`
	PollEmpty  actors.Duration `param:"jam_poll" help:"host time of a poll that finds no message (the valid bit, a cache hit)" source:"assumed: 50 ns"`
}

// DefaultParams returns the defaults, calibrated (calibration.go).
func DefaultParams() Params {
	p := Params{Slots: 32, SlotBytes: 88, SendBuffers: 16, FrameBytes: 8, AckBytes: 8, RetryDelay: 20 * actors.Microsecond,
		GIDQuantum: actors.Millisecond, RxInstr: 200, AckInstr: 60, DMAInstr: 100, ShmInstr: 150, PollEmpty: 50 * actors.Nanosecond}
	calibrate(&p)
	return p
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.Slots < 2:
		return fmt.Errorf("slots must be >= 2 (got %d)", p.Slots)
	case p.SlotBytes < 4*(2+MaxArgs):
		return fmt.Errorf("slot_bytes must hold a header, a handler and %d arguments: >= %d B (got %s)", MaxArgs, 4*(2+MaxArgs), p.SlotBytes)
	case p.SendBuffers < 1:
		return fmt.Errorf("send_buffers must be >= 1 (got %d)", p.SendBuffers)
	case p.FrameBytes < 0 || p.AckBytes < 4:
		return fmt.Errorf("frame_bytes must be >= 0 and ack_bytes >= 4")
	case p.RetryDelay <= 0 || p.GIDQuantum <= 0:
		return fmt.Errorf("retry_delay and gid_quantum must be > 0")
	case p.TxInstr < 0 || p.RxInstr < 0 || p.AckInstr < 0 || p.AckRxInstr < 0 || p.DMAInstr < 0 || p.ShmInstr < 0:
		return fmt.Errorf("fw_*_instr must be >= 0")
	case p.SendFixed < 0 || p.SendNExtra < 0 || p.SlotStore < 0 || p.RecvFixed < 0 || p.RecvNExtra < 0 || p.RecvArg < 0 || p.PollEmpty < 0:
		return fmt.Errorf("jam_* costs must be >= 0")
	}
	return nil
}
