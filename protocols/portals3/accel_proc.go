package portals3

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
	"github.com/seastar-sim/seastar/router"
)

// The user-level Portals library of an accelerated process (see accel.go): no system
// calls, no interrupts. Its costs are the library's own time (accel_lib_call,
// accel_lib_event), HyperTransport stores into the mailbox, and waiting for the
// firmware.

// register asks the kernel to give the process its firmware-level process: a trap,
// and the kernel's registration command, whose result the process waits for.
func (pr *Process) register() {
	pr.p.Trap(pr.s.p.KernEQ)
	addr := accelResult(pr.slot, pr.calls)
	pr.calls++
	pr.post(pr.s.p.CmdBytes*2, &AccelInit{Slot: pr.slot, PID: pr.ni.ID().PID, NI: pr.ni, Result: addr})
	pr.p.WaitFor(addr)
	pr.p.Forget(addr)
}

// offload runs a match-list call in the firmware: a command into the mailbox, then a
// busy-wait on the result. The result FIFO is in SeaStar SRAM; the model lets the
// firmware write the result to the host and charges the process from then on, which
// is a poll read landing right after the firmware posts it.
func (pr *Process) offload(call func()) {
	pr.p.Compute(pr.s.p.AccelLibCall)
	addr := accelResult(pr.slot, pr.calls)
	pr.calls++
	pr.post(pr.s.p.CmdBytes*2, &AccelTable{Slot: pr.slot, Call: call, Result: addr})
	pr.p.WaitFor(addr)
	pr.p.Forget(addr)
}

// contiguous refuses an iovec MD in accelerated mode, where the firmware builds the DMA
// program from one contiguous buffer.
func (pr *Process) contiguous(md ptl.MD) error {
	if pr.accel && md.Options&ptl.MDIovec != 0 {
		return ptl.ErrMDIllegal
	}
	return nil
}

// accelSend hands a message of the process to its mailbox: the library builds the
// header in a TX pending's upper half (its own host-managed pool) and posts a transmit
// command with the buffer; the firmware builds the DMA program.
func (pr *Process) accelSend(kind WireKind, h ptl.Header, region Region, data []byte) {
	s := pr.s
	t, start := s.traceStart(procCtx{pr.p})
	for len(pr.txFree) == 0 { // the pool is the library's own: wait for a transmit to finish
		addr := accelRecord(pr.slot, pr.recNext, s.p.AccelEQSlots)
		pr.consume(addr, pr.p.WaitFor(addr))
	}
	id := pr.txFree[len(pr.txFree)-1]
	pr.txFree = pr.txFree[:len(pr.txFree)-1]
	s.wireID++
	w := newWire(Wire{Kind: kind, Src: s.node, Dst: router.NodeID(h.Dst.NID), ID: uint64(s.node)<<40 | s.wireID, Data: data}, h, s.p.Recovery == "gbn")
	if region.Len <= int64(s.p.InlineMax) && kind == Put {
		w.Inline = region.Len
		pr.p.Memcpy(actors.Bytes(region.Len)) // the payload into the upper pending with the header
		region = Region{}
	} else {
		w.Len = region.Len
	}
	pr.p.Memcpy(s.p.HeaderBytes)
	pr.post(s.p.CmdBytes*2, accelTxs.New(AccelTx{Slot: pr.slot, Pending: id, Wire: w, Region: region, Kind: kind}))
	if t != nil {
		s.traceSend(procCtx{pr.p}, t, start, w, id, 0)
	}
}

func (pr *Process) accelPut(md ptl.MDHandle, ack ptl.AckReq, target ptl.ProcessID, pt ptl.PtIndex, bits ptl.MatchBits, remoteOffset uint64, hdr ptl.HdrData) error {
	t0 := pr.p.Now()
	pr.p.Compute(pr.s.p.AccelLibCall)
	pr.poll()
	h, err := pr.ni.Put(md, ack, target, pt, bits, remoteOffset, hdr)
	if err != nil {
		return err
	}
	regions, _ := pr.ni.SendRegions(h)
	data, _ := pr.ni.SendData(h)
	if _, err := pr.ni.SendStarted(h); err != nil {
		return err
	}
	var r Region
	if len(regions) > 0 { // an accelerated MD is contiguous: one region
		r = Region{Addr: regions[0].Addr, Len: int64(h.Length)}
	}
	pr.accelSend(Put, h, r, data)
	if t := pr.p.Tracer(); t != nil {
		pr.traceCall(t, "host/ptl_put", t0, pr.s.lastID())
	}
	return nil
}

func (pr *Process) accelGet(md ptl.MDHandle, target ptl.ProcessID, pt ptl.PtIndex, bits ptl.MatchBits, remoteOffset uint64) error {
	t0 := pr.p.Now()
	pr.p.Compute(pr.s.p.AccelLibCall)
	pr.poll()
	h, err := pr.ni.Get(md, target, pt, bits, remoteOffset)
	if err != nil {
		return err
	}
	pr.accelSend(Get, h, Region{}, nil)
	if t := pr.p.Tracer(); t != nil {
		pr.traceCall(t, "host/ptl_get", t0, pr.s.lastID())
	}
	return nil
}

// poll turns every record the firmware has written so far into Portals events.
func (pr *Process) poll() {
	for {
		addr := accelRecord(pr.slot, pr.recNext, pr.s.p.AccelEQSlots)
		m, ok := pr.p.Peek(addr)
		if !ok {
			return
		}
		pr.consume(addr, m)
	}
}

// consume handles the record m found at addr.
func (pr *Process) consume(addr uint64, m any) {
	pr.p.Forget(addr)
	pr.recNext++
	r := m.(*Record)
	s := pr.s
	pr.p.Compute(s.p.AccelLibEvent)
	switch r.Kind {
	case RecRxDone: // the data is in place already (zero copy)
		if _, err := pr.ni.Complete(r.D, false); err != nil {
			pr.p.Fatalf("portals: completing %s: %v", r.Wire, err)
		}
		pr.post(s.p.CmdBytes, NewAccelRelease(pr.slot, r.Pending))
	case RecGetDone:
		if _, err := pr.ni.Complete(r.D, r.Failed); err != nil {
			pr.p.Fatalf("portals: get done %s: %v", r.Wire, err)
		}
		pr.post(s.p.CmdBytes, NewAccelRelease(pr.slot, r.Pending))
	case RecTxDone:
		pr.txFree = append(pr.txFree, r.Pending)
		switch hdr := *r.Wire.Hdr.(*ptl.Header); {
		case r.Wire.Kind == Put:
			if _, err := pr.ni.SendDone(hdr, r.Failed); err != nil {
				pr.p.Fatalf("portals: send done %s: %v", r.Wire, err)
			}
		case r.Wire.Kind == Get && r.Failed: // recovery=gbn gave up on the target: the get ends with PTL_NI_FAIL
			if _, _, err := failedReply(pr.ni, hdr); err != nil {
				pr.p.Fatalf("portals: failing get %s: %v", r.Wire, err)
			}
		}
		r.Wire.Drop() // the sender is done with the message's descriptor
	case RecEvents: // matching in the firmware posted them already (an ack)
	default:
		pr.p.Fatalf("portals: unexpected record %s", r)
	}
	records.Release(r)
}

// accelWait is PtlEQWait at user level: poll the firmware's records until eq has an
// event.
func (pr *Process) accelWait(eq ptl.EQHandle) (ptl.Event, error) {
	pr.p.Compute(pr.s.p.AccelLibCall)
	for {
		pr.poll()
		ev, err := pr.ni.EQGet(eq)
		if ptl.Code(err) != ptl.ErrEQEmpty {
			return ev, err
		}
		addr := accelRecord(pr.slot, pr.recNext, pr.s.p.AccelEQSlots)
		pr.consume(addr, pr.p.WaitFor(addr))
	}
}

// post writes a command into the process's own firmware mailbox; without the
// write-through technique (ppc.write_through off) the library first reads the
// mailbox's head pointer: an uncached read across HyperTransport.
func (pr *Process) post(bytes actors.Bytes, cmd actors.Msg) {
	if pr.s.mailboxRead > 0 {
		pr.p.MMIORead(8)
	}
	pr.p.MMIOWrite(ht.PPC, bytes, cmd)
}
