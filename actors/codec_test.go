package actors

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type codecProbe struct {
	A    int64
	Name string
	Sub  *codecProbe
}

// sharedProbe is a descriptor several messages share (RegisterSharedCodec).
type sharedProbe struct{ ID int64 }

func init() {
	RegisterSharedCodec("actors.sharedProbe", func(e *Encoder, p *sharedProbe) { e.Int(p.ID) },
		func(d *Decoder) *sharedProbe { return &sharedProbe{ID: d.Int()} })
	RegisterCodec("actors.codecProbe", func(e *Encoder, p *codecProbe) {
		e.Int(p.A)
		e.String(p.Name)
		e.Value(p.Sub)
	}, func(d *Decoder) *codecProbe {
		p := &codecProbe{A: d.Int(), Name: d.String()}
		if v, ok := d.Value().(*codecProbe); ok {
			p.Sub = v
		}
		return p
	})
}

func TestCodecRoundTrip(t *testing.T) {
	var e Encoder
	e.Uint(0)
	e.Uint(math.MaxUint64)
	e.Int(math.MinInt64)
	e.Int(-1)
	e.Bool(true)
	e.Byte(7)
	e.Float(-2.5e-300)
	e.Fixed64(0xdeadbeefcafef00d)
	e.Time(MaxTime)
	e.Duration(-3 * Nanosecond)
	e.String("héllo")
	e.Blob(nil)
	e.Blob([]byte{})
	e.Blob([]byte{1, 2, 3})
	e.Value(nil)
	e.Value(&codecProbe{A: -9, Name: "outer", Sub: &codecProbe{A: 4, Name: "inner"}})
	e.Value(tok{42})
	require.NoError(t, e.Err())

	d := NewDecoder(e.Bytes())
	assert.Equal(t, uint64(0), d.Uint())
	assert.Equal(t, uint64(math.MaxUint64), d.Uint())
	assert.Equal(t, int64(math.MinInt64), d.Int())
	assert.Equal(t, int64(-1), d.Int())
	assert.True(t, d.Bool())
	assert.Equal(t, byte(7), d.Byte())
	assert.Equal(t, -2.5e-300, d.Float())
	assert.Equal(t, uint64(0xdeadbeefcafef00d), d.Fixed64())
	assert.Equal(t, MaxTime, d.Time())
	assert.Equal(t, -3*Nanosecond, d.Duration())
	assert.Equal(t, "héllo", d.String())
	assert.Nil(t, d.Blob())
	assert.Equal(t, []byte{}, d.Blob())
	assert.Equal(t, []byte{1, 2, 3}, d.Blob())
	assert.Nil(t, d.Value())
	assert.Equal(t, &codecProbe{A: -9, Name: "outer", Sub: &codecProbe{A: 4, Name: "inner"}}, d.Value())
	assert.Equal(t, tok{42}, d.Value())
	require.NoError(t, d.Err())
	assert.Zero(t, d.Remaining())
	d.Uint() // past the end: an error, not a panic
	assert.Error(t, d.Err())
}

// A value of a shared codec encoded twice between two Resets decodes as one value, as
// the packets of a message share their descriptor; a reference the decoder has not
// seen the value of is an error.
func TestSharedCodec(t *testing.T) {
	a, b := &sharedProbe{ID: 1}, &sharedProbe{ID: 2}
	var e Encoder
	for _, v := range []*sharedProbe{a, b, a, a} {
		e.Value(v)
	}
	require.NoError(t, e.Err())
	d := NewDecoder(e.Bytes())
	var got []*sharedProbe
	for d.Remaining() > 0 {
		got = append(got, d.Value().(*sharedProbe))
	}
	require.NoError(t, d.Err())
	assert.Equal(t, []int64{1, 2, 1, 1}, []int64{got[0].ID, got[1].ID, got[2].ID, got[3].ID})
	assert.NotSame(t, a, got[0], "a decoded value is new")
	assert.Same(t, got[0], got[2])
	assert.Same(t, got[0], got[3])
	assert.NotSame(t, got[0], got[1])

	e.Reset() // a new batch: a is encoded in full again
	e.Value(a)
	d = NewDecoder(e.Bytes())
	assert.Equal(t, &sharedProbe{ID: 1}, d.Value())
	require.NoError(t, d.Err())

	var ref Encoder // a reference alone: the first value of the batch is missing
	ref.Value(a)
	ref.Reset()
	ref.b = append(ref.b, e.b[0]) // the type id
	ref.Uint(1)
	d = NewDecoder(ref.Bytes())
	assert.Nil(t, d.Value())
	assert.ErrorContains(t, d.Err(), "invalid reference 1 to a actors.sharedProbe")

	// A decoder reused for the next batch (Reset) forgets the values of the last.
	d.Reset(e.Bytes())
	assert.Equal(t, &sharedProbe{ID: 1}, d.Value())
	require.NoError(t, d.Err())
	d.Reset(ref.Bytes())
	assert.Nil(t, d.Value())
	assert.ErrorContains(t, d.Err(), "invalid reference 1")

	assert.Panics(t, func() {
		RegisterSharedCodec("actors.sharedTok", func(*Encoder, tok) {}, func(*Decoder) tok { return tok{} })
	}, "not a pointer type")
}

func TestCodecUnregisteredType(t *testing.T) {
	var e Encoder
	e.Value(plainMsg{})
	var ce *CodecError
	require.ErrorAs(t, e.Err(), &ce)
	assert.Equal(t, "actors.plainMsg", ce.Type)
	assert.ErrorIs(t, e.Err(), ErrConfig)
	var nilPtr *plainMsg
	var e2 Encoder
	e2.Value(nilPtr) // a nil pointer of a type without codec is refused too, by name
	require.ErrorAs(t, e2.Err(), &ce)
	assert.Equal(t, "*actors.plainMsg", ce.Type)
	assert.False(t, HasCodec(plainMsg{}))
	assert.True(t, HasCodec(tok{}))
	assert.Panics(t, func() {
		RegisterCodec("actors.tok", func(*Encoder, tok) {}, func(*Decoder) tok { return tok{} })
	}, "a duplicate name")
	assert.Panics(t, func() {
		RegisterCodec[Msg]("actors.anyMsg", func(*Encoder, Msg) {}, func(*Decoder) Msg { return nil })
	}, "an interface type")
}

func TestVarsRoundTrip(t *testing.T) {
	type stats struct {
		N    int64
		Peak int
		Time Duration
	}
	var (
		at    = Time(123)
		n     = -5
		u     = uint32(9)
		f     = 0.25
		b     = true
		s     = "x"
		list  = []int64{1, -2, 3}
		empty []float64
		st    = stats{N: 1, Peak: 2, Time: 3}
		probe = &codecProbe{A: 1, Name: "p"}
	)
	var e Encoder
	Vars{&at, &n, &u, &f, &b, &s, &list, &empty, &st, &probe}.Snapshot(&e)
	require.NoError(t, e.Err())
	var (
		at2    Time
		n2     int
		u2     uint32
		f2     float64
		b2     bool
		s2     string
		list2  = []int64{7}
		empty2 = []float64{1}
		st2    stats
		probe2 *codecProbe
	)
	d := NewDecoder(e.Bytes())
	Vars{&at2, &n2, &u2, &f2, &b2, &s2, &list2, &empty2, &st2, &probe2}.Restore(d)
	require.NoError(t, d.Err())
	assert.Zero(t, d.Remaining())
	assert.Equal(t, []any{at, n, u, f, b, s, list, empty, st, probe}, []any{at2, n2, u2, f2, b2, s2, list2, empty2, st2, probe2})

	e.Reset()
	Vars{at}.Snapshot(&e) // not a pointer
	assert.Error(t, e.Err())
}

// Decoding arbitrary bytes never panics and never allocates without bound.
func FuzzDecoder(f *testing.F) {
	var e Encoder
	e.Value(&codecProbe{A: 1, Name: "a", Sub: &codecProbe{}})
	e.Blob([]byte{1, 2})
	sp := &sharedProbe{ID: 3}
	e.Value(sp)
	e.Value(sp)
	f.Add(e.Bytes())
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder(b)
		for d.Remaining() > 0 && d.Err() == nil {
			d.Value()
			d.Blob()
			_ = d.String()
			var x []int64
			Vars{&x}.Restore(d)
		}
		_, _ = decodeFrame(b)
		_, _ = decodeHello(b)
	})
}

func TestExportNeedsAnActor(t *testing.T) {
	g := NewGraph()
	g.Add("a", idle{})
	var x int64
	g.Export("a", Vars{&x})
	g.Export("nobody", Vars{&x})
	g.Export("a", nil)
	_, err := g.Build()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `Export for "nobody", which is not an actor`)
	assert.Contains(t, err.Error(), `nil Snapshotter for "a"`)
}
