package actorstest

import (
	"reflect"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/require"
)

// Populated returns a T whose fields, recursively, all hold distinct non-zero values
// (pointers to populated values, one-element slices), so that a codec test notices a
// field the codec forgets, including fields added after the codec was written.
// Interface fields are left nil: set them to values of registered types.
func Populated[T any]() T {
	var v T
	n := uint64(1)
	populate(reflect.ValueOf(&v).Elem(), &n)
	return v
}

func populate(v reflect.Value, n *uint64) {
	*n++
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n % 100))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(*n % 100)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.String:
		v.SetString("s" + string(rune('a'+*n%26)))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		populate(p.Elem(), n)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		populate(s.Index(0), n)
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			populate(v.Index(i), n)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				populate(v.Field(i), n)
			}
		}
	}
}

// RoundTrip encodes v as a value crossing processes would be, decodes it, and requires
// the copy to equal v, and v's message fingerprint (if any) to be preserved.
func RoundTrip(t testing.TB, v any) any {
	t.Helper()
	var e actors.Encoder
	e.Value(v)
	require.NoError(t, e.Err())
	d := actors.NewDecoder(e.Bytes())
	got := d.Value()
	require.NoError(t, d.Err())
	require.Zero(t, d.Remaining(), "the decoder left bytes unread")
	require.Equal(t, v, got)
	if f, ok := v.(actors.Fingerprinter); ok {
		require.Equal(t, f.Fingerprint(), got.(actors.Fingerprinter).Fingerprint())
	}
	return got
}
