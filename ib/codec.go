package ib

import "github.com/seastar-sim/seastar/actors"

// Frames cross between processes when a run is split across them (the switches of
// the fabric in one, the HCAs in another); the upper layer's payload must have a codec
// of its own.
func init() {
	actors.RegisterCodec("ib.Frame", func(e *actors.Encoder, f *Frame) {
		e.Byte(byte(f.kind))
		e.Int(int64(f.Src))
		e.Int(int64(f.Dst))
		e.Uint(uint64(f.SrcPID))
		e.Uint(uint64(f.DstPID))
		e.Int(f.Bytes)
		e.Int(f.Len)
		e.Uint(f.WRID)
		e.Bool(f.Signaled)
		e.Byte(byte(f.Op))
		e.Value(f.Payload)
		e.Value(f.Orig)
		e.Uint(f.Epoch)
		e.Uint(f.ID)
		e.Duration(f.Span)
	}, func(d *actors.Decoder) *Frame {
		f := &Frame{kind: frameKind(d.Byte()), Src: int(d.Int()), Dst: int(d.Int()), SrcPID: uint32(d.Uint()),
			DstPID: uint32(d.Uint()), Bytes: d.Int(), Len: d.Int(), WRID: d.Uint(), Signaled: d.Bool(), Op: Op(d.Byte())}
		f.Payload = d.Value()
		if o, ok := d.Value().(*Frame); ok {
			f.Orig = o
		}
		f.Epoch, f.ID, f.Span = d.Uint(), d.Uint(), d.Duration()
		return f
	})
}
