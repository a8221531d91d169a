package actors

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Codecs: how messages and model state cross process boundaries.
//
// A multi-process run (see Cluster) builds the same model in every process; the
// messages that cross from a partition of one process to a partition of another, and
// the state that results read after the run (Graph.Export), travel as bytes. Every
// type that can cross is registered once, from an init function of its package, with
// RegisterCodec: a stable name, an encoder and a decoder. Processes agree on the
// registry at connect time (same binary, same names), so a type travels as a small
// integer. Decoding creates new values: the packets of one message, which share a
// descriptor pointer inside a process, each get their own copy in the receiving
// process, so receivers must not rely on pointer identity across a cut. Decoders must
// rebuild everything a message's Fingerprint reads, so that digests do not depend on
// the process count.
//
// A message of an unregistered type crossing a process boundary ends the run with a
// configuration error naming the type and the link.

// Crosser is implemented by messages that go back to a pool once they have crossed to
// another process: the event that held one is encoded there and gone here, so the
// sending process's last holder is the encoder. Crossed is called once the message is
// encoded, on the process's controller, and must leave the message's content (shared
// descriptors it points to) untouched for the other holders of those.
type Crosser interface {
	Crossed()
}

// Encoder appends values to a byte buffer in a compact binary form: unsigned integers
// and lengths as varints, signed integers as zig-zag varints. Encoding cannot fail
// except for values of unregistered types (Value), which record an error that Err
// returns.
type Encoder struct {
	b   []byte
	err error
	// shared numbers the values of shared codecs encoded since the last Reset
	// (RegisterSharedCodec), from 1
	shared map[any]uint64
}

// Bytes returns the encoded bytes. They alias the encoder's buffer until Reset.
func (e *Encoder) Bytes() []byte { return e.b }

// Len is the number of bytes encoded.
func (e *Encoder) Len() int { return len(e.b) }

// Reset empties the encoder, keeping its buffer.
func (e *Encoder) Reset() {
	e.b, e.err = e.b[:0], nil
	clear(e.shared)
}

// Err returns the first error met, such as a value of an unregistered type.
func (e *Encoder) Err() error { return e.err }

// Uint encodes an unsigned integer.
func (e *Encoder) Uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }

// Int encodes a signed integer.
func (e *Encoder) Int(v int64) { e.b = binary.AppendVarint(e.b, v) }

// Byte encodes one byte.
func (e *Encoder) Byte(v byte) { e.b = append(e.b, v) }

// Bool encodes a boolean.
func (e *Encoder) Bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// Float encodes a float64 exactly (its IEEE-754 bits).
func (e *Encoder) Float(v float64) { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v)) }

// Fixed64 encodes a 64-bit value in 8 bytes (for hashes and other values that are
// usually large).
func (e *Encoder) Fixed64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }

// Time encodes a simulated time.
func (e *Encoder) Time(t Time) { e.Int(int64(t)) }

// Duration encodes a duration.
func (e *Encoder) Duration(d Duration) { e.Int(int64(d)) }

// String encodes a string.
func (e *Encoder) String(s string) {
	e.Uint(uint64(len(s)))
	e.b = append(e.b, s...)
}

// Blob encodes a byte slice; nil and empty slices decode differently.
func (e *Encoder) Blob(p []byte) {
	if p == nil {
		e.Uint(0)
		return
	}
	e.Uint(uint64(len(p)) + 1)
	e.b = append(e.b, p...)
}

// Value encodes v, whose dynamic type must be registered (RegisterCodec), or nil (a
// nil pointer of a registered type decodes as nil).
func (e *Encoder) Value(v any) {
	if v == nil {
		e.Uint(0)
		return
	}
	c := codecOf(v) // first: a nil pointer of a type without codec is refused too, by name
	if c == nil {
		if e.err == nil {
			e.err = &CodecError{Type: typeName(v)}
		}
		e.Uint(0)
		return
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		e.Uint(0)
		return
	}
	e.Uint(uint64(c.id))
	if c.shared {
		if i, ok := e.shared[v]; ok {
			e.Uint(i)
			return
		}
		if e.shared == nil {
			e.shared = map[any]uint64{}
		}
		e.shared[v] = uint64(len(e.shared)) + 1
		e.Uint(0)
	}
	c.enc(e, v)
}

// CodecError reports a value that cannot cross a process boundary because its type has
// no codec. It matches ErrConfig.
type CodecError struct {
	Type string // the Go type, e.g. "*foo.Msg"
}

func (e *CodecError) Error() string {
	return fmt.Sprintf("type %s has no codec, so it cannot cross between processes "+
		"(register one with actors.RegisterCodec, or choose a partitioning that keeps it inside a process)", e.Type)
}

// Is makes CodecError match ErrConfig.
func (e *CodecError) Is(target error) bool { return target == ErrConfig }

// Decoder reads what an Encoder wrote. Malformed input never panics: the first error
// sticks (Err), and every read after it returns zero values.
type Decoder struct {
	b      []byte
	err    error
	shared []any // the values of shared codecs decoded so far, by number (RegisterSharedCodec)
}

// NewDecoder returns a decoder of b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// Reset makes d a decoder of b, as NewDecoder(b) would be, keeping its storage.
func (d *Decoder) Reset(b []byte) {
	clear(d.shared) // nothing decoded stays reachable through d
	d.b, d.err, d.shared = b, nil, d.shared[:0]
}

// Err returns the first error met.
func (d *Decoder) Err() error { return d.err }

// Remaining is the number of bytes not read yet.
func (d *Decoder) Remaining() int { return len(d.b) }

// Fail records err (the first one sticks); decoders call it for values they reject.
func (d *Decoder) Fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.b = nil
}

func (d *Decoder) failf(format string, args ...any) { d.Fail(fmt.Errorf("decode: "+format, args...)) }

// Uint decodes an unsigned integer.
func (d *Decoder) Uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.failf("truncated or invalid varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Int decodes a signed integer.
func (d *Decoder) Int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.failf("truncated or invalid varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Byte decodes one byte.
func (d *Decoder) Byte() byte {
	if len(d.b) < 1 {
		d.failf("truncated byte")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

// Bool decodes a boolean.
func (d *Decoder) Bool() bool {
	switch d.Byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.failf("invalid boolean")
	return false
}

// Fixed64 decodes an 8-byte value.
func (d *Decoder) Fixed64() uint64 {
	if len(d.b) < 8 {
		d.failf("truncated fixed64")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

// Float decodes a float64.
func (d *Decoder) Float() float64 { return math.Float64frombits(d.Fixed64()) }

// Time decodes a simulated time.
func (d *Decoder) Time() Time { return Time(d.Int()) }

// Duration decodes a duration.
func (d *Decoder) Duration() Duration { return Duration(d.Int()) }

// Count decodes a length or element count and checks it against the bytes left, each
// element taking at least minBytes (>= 1), so that a corrupt count cannot make the
// caller allocate without bound.
func (d *Decoder) Count(minBytes int) int {
	n := d.Uint()
	if d.err != nil {
		return 0
	}
	if n > uint64(len(d.b)/max(1, minBytes)) {
		d.failf("count %d exceeds the %d bytes left", n, len(d.b))
		return 0
	}
	return int(n)
}

func (d *Decoder) take(n int) []byte {
	if n > len(d.b) {
		d.failf("truncated: want %d bytes, have %d", n, len(d.b))
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

// String decodes a string.
func (d *Decoder) String() string { return string(d.take(d.Count(1))) }

// Blob decodes a byte slice (a copy).
func (d *Decoder) Blob() []byte {
	n := d.Uint()
	if n == 0 || d.err != nil {
		return nil
	}
	if n-1 > uint64(len(d.b)) {
		d.failf("truncated blob of %d bytes", n-1)
		return nil
	}
	return slices.Clone(d.take(int(n - 1)))
}

// Value decodes a value written by Encoder.Value.
func (d *Decoder) Value() any {
	id := d.Uint()
	if id == 0 || d.err != nil {
		return nil
	}
	t := registry()
	if id > uint64(len(t.byID)) {
		d.failf("unknown type id %d", id)
		return nil
	}
	c := t.byID[id-1]
	if !c.shared {
		return c.dec(d)
	}
	ref := d.Uint()
	if ref == 0 { // a new value: its number is taken before its content, as encoded
		d.shared = append(d.shared, nil)
		k := len(d.shared) - 1
		v := c.dec(d)
		d.shared[k] = v
		return v
	}
	if ref > uint64(len(d.shared)) || d.shared[ref-1] == nil || reflect.TypeOf(d.shared[ref-1]) != c.typ {
		d.failf("invalid reference %d to a %s", ref, c.name)
		return nil
	}
	return d.shared[ref-1]
}

// codec is one registered type.
type codec struct {
	name string
	typ  reflect.Type
	id   uint32 // 1-based rank of name in the sorted registry
	enc  func(*Encoder, any)
	dec  func(*Decoder) any
	// shared: a value encoded twice by one Encoder decodes as one value
	// (RegisterSharedCodec)
	shared bool
}

// codecTable is the frozen registry: ids follow name order, so every process built
// from the same binary agrees on them.
type codecTable struct {
	byType map[reflect.Type]*codec
	byID   []*codec
	hash   uint64 // of the names in order, compared when processes connect
}

var codecs struct {
	mu      sync.Mutex
	pending []*codec
	table   *codecTable // nil until first use after a registration
}

// RegisterCodec registers how values of type T (a concrete type, usually a pointer to
// a message struct) are encoded and decoded when they cross processes. name must be
// unique and stable (the package path and type, e.g. "router.Packet"). Call it from an
// init function; it panics on an interface type or a duplicate name or type.
func RegisterCodec[T any](name string, enc func(*Encoder, T), dec func(*Decoder) T) {
	register(name, enc, dec, false)
}

// RegisterSharedCodec registers a pointer type whose values several messages share in
// a process (the descriptor every packet of a message carries): an Encoder encodes a
// value once until its Reset, and refers to it afterwards, and a Decoder returns the
// same value for every reference, so that the messages decoded from one batch share
// it as they did where they were sent (and it is decoded, and allocated, once).
func RegisterSharedCodec[T any](name string, enc func(*Encoder, T), dec func(*Decoder) T) {
	if reflect.TypeFor[T]().Kind() != reflect.Pointer {
		panic(fmt.Sprintf("actors: RegisterSharedCodec(%q): %s is not a pointer type", name, reflect.TypeFor[T]()))
	}
	register(name, enc, dec, true)
}

func register[T any](name string, enc func(*Encoder, T), dec func(*Decoder) T, shared bool) {
	typ := reflect.TypeFor[T]()
	if typ.Kind() == reflect.Interface {
		panic(fmt.Sprintf("actors: RegisterCodec(%q): %s is an interface type; register concrete types", name, typ))
	}
	if name == "" || enc == nil || dec == nil {
		panic(fmt.Sprintf("actors: RegisterCodec(%q, %s): empty name or nil function", name, typ))
	}
	codecs.mu.Lock()
	defer codecs.mu.Unlock()
	for _, c := range codecs.pending {
		if c.name == name || c.typ == typ {
			panic(fmt.Sprintf("actors: RegisterCodec: %q (%s) registered twice (first as %q, %s)", name, typ, c.name, c.typ))
		}
	}
	codecs.pending = append(codecs.pending, &codec{name: name, typ: typ, shared: shared,
		enc: func(e *Encoder, v any) { enc(e, v.(T)) },
		dec: func(d *Decoder) any { return dec(d) }})
	codecs.table = nil
}

// registry returns the frozen table of registered codecs.
func registry() *codecTable {
	codecs.mu.Lock()
	defer codecs.mu.Unlock()
	if codecs.table == nil {
		t := &codecTable{byType: map[reflect.Type]*codec{}}
		t.byID = slices.Clone(codecs.pending)
		slices.SortFunc(t.byID, func(a, b *codec) int { return strings.Compare(a.name, b.name) })
		h := uint64(len(t.byID))
		for i, c := range t.byID {
			c.id = uint32(i + 1)
			t.byType[c.typ] = c
			h = mix64(h ^ hashString(c.name))
			if c.shared {
				h = mix64(h ^ 1)
			}
		}
		t.hash = h
		codecs.table = t
	}
	return codecs.table
}

func codecOf(v any) *codec { return registry().byType[reflect.TypeOf(v)] }

func typeName(v any) string { return reflect.TypeOf(v).String() }

// HasCodec reports whether values of v's dynamic type can cross processes.
func HasCodec(v any) bool { return v == nil || codecOf(v) != nil }

// Snapshotter is state that results read after a run, shipped between processes at
// the end of a multi-process run (see Graph.Export). Snapshot encodes the state;
// Restore overwrites it with what Snapshot encoded in another process and reports
// malformed input through the decoder.
type Snapshotter interface {
	Snapshot(e *Encoder)
	Restore(d *Decoder)
}

// Vars is a Snapshotter over pointers to variables: *Time, *Duration, *int, *int64,
// *int32, *uint64, *uint32, *float64, *bool, *string, slices of those (*[]int64, ...)
// and pointers to values of registered types. It suits the few variables a
// benchmark's processes fill in and its result reads:
//
//	var start, end actors.Time
//	g.Export(hostRef, actors.Vars{&start, &end})
type Vars []any

// Snapshot implements Snapshotter.
func (vs Vars) Snapshot(e *Encoder) {
	for _, p := range vs {
		encodeVar(e, reflect.ValueOf(p))
	}
}

// Restore implements Snapshotter.
func (vs Vars) Restore(d *Decoder) {
	for _, p := range vs {
		decodeVar(d, reflect.ValueOf(p))
	}
}

func encodeVar(e *Encoder, p reflect.Value) {
	if p.Kind() != reflect.Pointer || p.IsNil() {
		e.err = cmpErr(e.err, fmt.Errorf("actors.Vars: %s is not a non-nil pointer", p.Type()))
		return
	}
	v := p.Elem()
	if c := registry().byType[v.Type()]; c != nil {
		c.enc(e, v.Interface())
		return
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.Int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.Uint(v.Uint())
	case reflect.Float32, reflect.Float64:
		e.Float(v.Float())
	case reflect.Bool:
		e.Bool(v.Bool())
	case reflect.String:
		e.String(v.String())
	case reflect.Slice:
		e.Bool(v.IsNil())
		e.Uint(uint64(v.Len()))
		for i := range v.Len() {
			encodeVar(e, v.Index(i).Addr())
		}
	case reflect.Array:
		for i := range v.Len() {
			encodeVar(e, v.Index(i).Addr())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				e.err = cmpErr(e.err, fmt.Errorf("actors.Vars: %s has unexported field %s", v.Type(), v.Type().Field(i).Name))
				return
			}
			encodeVar(e, v.Field(i).Addr())
		}
	default:
		e.err = cmpErr(e.err, fmt.Errorf("actors.Vars: cannot encode %s", v.Type()))
	}
}

func decodeVar(d *Decoder, p reflect.Value) {
	if p.Kind() != reflect.Pointer || p.IsNil() {
		d.Fail(fmt.Errorf("actors.Vars: %s is not a non-nil pointer", p.Type()))
		return
	}
	v := p.Elem()
	if c := registry().byType[v.Type()]; c != nil {
		if x := c.dec(d); d.err == nil {
			v.Set(reflect.ValueOf(x))
		}
		return
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(d.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(d.Uint())
	case reflect.Float32, reflect.Float64:
		v.SetFloat(d.Float())
	case reflect.Bool:
		v.SetBool(d.Bool())
	case reflect.String:
		v.SetString(d.String())
	case reflect.Slice:
		isNil := d.Bool()
		n := d.Count(1)
		if d.err != nil {
			return
		}
		if isNil {
			v.SetZero()
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			decodeVar(d, s.Index(i).Addr())
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			decodeVar(d, v.Index(i).Addr())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			decodeVar(d, v.Field(i).Addr())
		}
	default:
		d.Fail(fmt.Errorf("actors.Vars: cannot decode %s", v.Type()))
	}
}

func cmpErr(old, err error) error {
	if old != nil {
		return old
	}
	return err
}

// Export declares s as state owned by the actor named owner that results read after
// the run: statistics of a block, variables a workload's processes fill in. In a
// multi-process run, the process that ran owner encodes s at the end and every other
// process restores its copy from it, so that every process reads the same results. A
// single-process run ignores exports. Exports are shipped in the order declared, the
// same in every process because the model is built deterministically. Build reports an
// owner that is not an actor of the graph.
func (g *Graph) Export(owner string, s Snapshotter) {
	if s == nil {
		g.errorf("graph: Export of a nil Snapshotter for %q", owner)
		return
	}
	g.exports = append(g.exports, exportSpec{owner: owner, s: s})
}

type exportSpec struct {
	owner string
	s     Snapshotter
}

// export is an exportSpec resolved to an actor id.
type export struct {
	owner ActorID
	s     Snapshotter
}

// errTruncated is returned when decoded input ends early.
var errTruncated = errors.New("decode: trailing or missing bytes")
