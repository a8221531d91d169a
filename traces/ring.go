package traces

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/ppc"
)

// Ring is the firmware trace ring of one PPC at the end of a run.
type Ring struct {
	Name    string          // the PPC actor, e.g. "node[0,0,0].ppc"
	Period  actors.Duration // of the PPC clock: the unit of the timestamps
	Total   int64           // records ever written; the ring keeps the last len(Records)
	Records []ppc.Record
}

// RingsOf returns the trace rings of a model's PPCs, in actor order, skipping those
// that recorded nothing.
func RingsOf(m *actors.Model) []Ring {
	var out []Ring
	for id := range actors.ActorID(m.NumActors()) {
		c, ok := m.Actor(id).(*ppc.Core)
		if !ok || c.Trace().Total() == 0 {
			continue
		}
		t := c.Trace()
		out = append(out, Ring{Name: m.Name(id), Period: c.Params().Cycles(1), Total: t.Total(), Records: t.Records()})
	}
	return out
}

// The ring file: what the SMW tool fetches from SeaStar SRAM (Pedretti & Hudson 2005
// s.3.3), plus the symbol table of the firmware image, which the real tool reads from
// the ELF file. Big-endian, as the PowerPC writes it:
//
//	"SSTRACE1"
//	u32 symbols, each: u32 address, u16 name length, name
//	u32 rings,   each: u16 name length, name, u64 PPC clock period in ps (the
//	                   timestamp unit), u64 records written, u32 n,
//	                   n records of (u32 timestamp, u32 value<<24 | pc&0xffffff)
const ringMagic = "SSTRACE1"

// Symbols of the simulated firmware image: text starts at textBase in the PPC's view
// of SRAM, functions follow each other in name order, each in a slot a multiple of 256
// bytes long that covers its largest trace point offset.
const textBase = 0xff0000

// RingFile is a decoded ring file.
type RingFile struct {
	Symbols []Symbol // by address
	Rings   []RawRing
}

// Symbol is a firmware function.
type Symbol struct {
	Addr uint32
	Name string
}

// RawRing is a ring as stored: raw 8-byte records.
type RawRing struct {
	Name    string
	Period  actors.Duration // of one timestamp tick
	Total   uint64
	Records []RawRecord
}

// RawRecord is one 8-byte trace record.
type RawRecord struct {
	Stamp uint32 // PPC time base, in ticks of the period
	Word  uint32 // value<<24 | program counter & 0xffffff
}

// Value is the record's 8-bit user value.
func (r RawRecord) Value() uint8 { return uint8(r.Word >> 24) }

// PC is the low 24 bits of the program counter of the trace point.
func (r RawRecord) PC() uint32 { return r.Word & 0xffffff }

// symbols lays out the functions the rings name.
func symbols(rings []Ring) ([]Symbol, map[string]uint32, error) {
	size := map[string]uint32{}
	for _, r := range rings {
		for _, rec := range r.Records {
			size[rec.Func] = max(size[rec.Func], rec.Offset+4)
		}
	}
	names := make([]string, 0, len(size))
	for n := range size {
		names = append(names, n)
	}
	slices.Sort(names)
	addr := map[string]uint32{}
	syms := make([]Symbol, 0, len(names))
	next := uint32(textBase)
	for _, n := range names {
		if len(n) == 0 || len(n) > 0xffff {
			return nil, nil, fmt.Errorf("traces: trace point function name %q is empty or too long", n)
		}
		addr[n] = next
		syms = append(syms, Symbol{Addr: next, Name: n})
		next += (size[n] + 0xff) &^ 0xff
		if next > 0xffffff+1 {
			return nil, nil, errors.New("traces: trace point functions do not fit a 24-bit program counter")
		}
	}
	return syms, addr, nil
}

// WriteRings writes rings in the ring file format. A ring's timestamps are 32-bit
// counts of its Period (the PPC clock), which wrap as the real time base register does.
func WriteRings(w io.Writer, rings []Ring) error {
	for _, r := range rings {
		if r.Period <= 0 {
			return fmt.Errorf("traces: ring %s: clock period must be > 0 (got %s)", r.Name, r.Period)
		}
	}
	syms, addr, err := symbols(rings)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	be := binary.BigEndian
	var b []byte
	b = append(b, ringMagic...)
	b = be.AppendUint32(b, uint32(len(syms)))
	for _, s := range syms {
		b = be.AppendUint32(b, s.Addr)
		b = be.AppendUint16(b, uint16(len(s.Name)))
		b = append(b, s.Name...)
	}
	b = be.AppendUint32(b, uint32(len(rings)))
	if _, err := bw.Write(b); err != nil {
		return err
	}
	for _, r := range rings {
		if len(r.Name) > 0xffff {
			return fmt.Errorf("traces: ring name %q too long", r.Name)
		}
		b = b[:0]
		b = be.AppendUint16(b, uint16(len(r.Name)))
		b = append(b, r.Name...)
		b = be.AppendUint64(b, uint64(r.Period))
		b = be.AppendUint64(b, uint64(r.Total))
		b = be.AppendUint32(b, uint32(len(r.Records)))
		for _, rec := range r.Records {
			b = be.AppendUint32(b, uint32(int64(rec.At)/int64(r.Period)))
			b = be.AppendUint32(b, uint32(rec.Value)<<24|(addr[rec.Func]+rec.Offset)&0xffffff)
		}
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadRings decodes a ring file. A truncated or malformed file is an error that says
// where it went wrong.
func ReadRings(r io.Reader) (*RingFile, error) {
	d := &decoder{r: bufio.NewReader(r)}
	magic := d.bytes(len(ringMagic), "magic")
	if d.err == nil && string(magic) != ringMagic {
		return nil, fmt.Errorf("not a trace ring file (magic %q, want %q)", magic, ringMagic)
	}
	f := &RingFile{}
	nsym := d.count("symbol count", 6)
	for i := 0; i < nsym && d.err == nil; i++ {
		s := Symbol{Addr: d.u32("symbol address")}
		s.Name = string(d.bytes(int(d.u16("symbol name length")), "symbol name"))
		if d.err == nil && i > 0 && s.Addr <= f.Symbols[i-1].Addr {
			return nil, fmt.Errorf("trace ring file: symbol %s at %#x is not after %s", s.Name, s.Addr, f.Symbols[i-1].Name)
		}
		f.Symbols = append(f.Symbols, s)
	}
	nring := d.count("ring count", 22)
	for i := 0; i < nring && d.err == nil; i++ {
		var rr RawRing
		rr.Name = string(d.bytes(int(d.u16("ring name length")), "ring name"))
		rr.Period = actors.Duration(d.u64("clock period"))
		if d.err == nil && rr.Period <= 0 {
			return nil, fmt.Errorf("trace ring file: ring %s: clock period %d ps must be > 0", rr.Name, int64(rr.Period))
		}
		rr.Total = d.u64("records written")
		n := d.count("record count", 8)
		if d.err == nil && uint64(n) > rr.Total {
			return nil, fmt.Errorf("trace ring file: ring %s holds %d records but only %d were written", rr.Name, n, rr.Total)
		}
		for j := 0; j < n && d.err == nil; j++ {
			rr.Records = append(rr.Records, RawRecord{Stamp: d.u32("record"), Word: d.u32("record")})
		}
		f.Rings = append(f.Rings, rr)
	}
	if d.err != nil {
		return nil, d.err
	}
	if _, err := d.r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("trace ring file: trailing bytes after %d rings", nring)
	}
	return f, nil
}

type decoder struct {
	r   *bufio.Reader
	off int64
	err error
}

func (d *decoder) bytes(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		d.err = fmt.Errorf("trace ring file truncated at byte %d reading the %s", d.off, what)
		return nil
	}
	d.off += int64(n)
	return b
}

func (d *decoder) u16(what string) uint16 {
	if b := d.bytes(2, what); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (d *decoder) u32(what string) uint32 {
	if b := d.bytes(4, what); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64(what string) uint64 {
	if b := d.bytes(8, what); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// count reads a u32 count of items at least min bytes each, refusing counts that
// could not fit in any sane file (no huge allocations from a corrupt header).
func (d *decoder) count(what string, min int) int {
	n := d.u32(what)
	if d.err == nil && uint64(n)*uint64(min) > 1<<32 {
		d.err = fmt.Errorf("trace ring file: %s %d is implausible", what, n)
		return 0
	}
	return int(n)
}

// Resolve returns the function containing pc and the offset into it, or ("?", pc)
// when pc lies before the first symbol.
func (f *RingFile) Resolve(pc uint32) (string, uint32) {
	i, found := slices.BinarySearchFunc(f.Symbols, pc, func(s Symbol, pc uint32) int {
		switch {
		case s.Addr < pc:
			return -1
		case s.Addr > pc:
			return 1
		}
		return 0
	})
	if !found {
		i--
	}
	if i < 0 {
		return "?", pc
	}
	return f.Symbols[i].Name, pc - f.Symbols[i].Addr
}

// Dump prints every ring in the format of the tracedump tool (Pedretti & Hudson 2005
// figure 2), oldest record first:
//
//	e4681e8b: 24: 18ff0c4c mainloop+0014 (178 ns)
//
// the timestamp (PPC time base, hex), the user value, the raw record word (value and
// program counter), the function and offset of the trace point, and the time from this
// trace point to the next one, as the figure shows it (the delta of line i is stamp[i+1]
// - stamp[i]); the last record of a ring has no successor and prints no delta. Each
// ring is introduced by a "# NAME: N records (M written)" line.
func (f *RingFile) Dump(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, r := range f.Rings {
		fmt.Fprintf(bw, "# %s: %d records (%d written)\n", r.Name, len(r.Records), r.Total)
		for i, rec := range r.Records {
			fn, off := f.Resolve(rec.PC())
			fmt.Fprintf(bw, "%08x: %d: %08x %s+%04x", rec.Stamp, rec.Value(), rec.Word, fn, off)
			if i+1 < len(r.Records) {
				ticks := r.Records[i+1].Stamp - rec.Stamp // modulo 2^32: the time base wraps
				fmt.Fprintf(bw, " (%d ns)", actors.Duration(ticks)*r.Period/actors.Nanosecond)
			}
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}
