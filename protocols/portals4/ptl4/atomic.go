package ptl4

import (
	"encoding/binary"
	"math"
)

// apply performs atomic operation op on the elements of type d in t (the target's
// bytes, updated in place) with the initiator's data src and, for the conditional and
// masked swaps, operand. It returns the number of elements computed. Long doubles are
// x87 80-bit extended values in 16-byte slots; the model computes on them in double
// precision (within the conformance suite's 1e-12 tolerance), an approximation
// stated here rather than hidden.
func apply(op Op, d Datatype, t, src, operand []byte) int {
	size := d.Size()
	if size == 0 {
		return 0
	}
	n := len(t) / size
	for i := 0; i < n; i++ {
		te, se := t[i*size:(i+1)*size], src[i*size:(i+1)*size]
		var oe []byte
		if len(operand) >= size {
			oe = operand[:size]
		}
		switch {
		case d.integral():
			applyInt(op, d, te, se, oe)
		case d.floating():
			putFloat(d, te, applyFloat(op, getFloat(d, te), getFloat(d, se), floatOr(d, oe)))
		default:
			half := size / 2
			fd := complexPart(d)
			tr, ti := getFloat(fd, te[:half]), getFloat(fd, te[half:])
			sr, si := getFloat(fd, se[:half]), getFloat(fd, se[half:])
			var or, oi float64
			if oe != nil {
				or, oi = getFloat(fd, oe[:half]), getFloat(fd, oe[half:])
			}
			r, im := applyComplex(op, complex(tr, ti), complex(sr, si), complex(or, oi))
			putFloat(fd, te[:half], r)
			putFloat(fd, te[half:], im)
		}
	}
	return n
}

func complexPart(d Datatype) Datatype {
	switch d {
	case FloatComplex:
		return Float
	case DoubleComplex:
		return Double
	}
	return LongDouble
}

func floatOr(d Datatype, b []byte) float64 {
	if b == nil {
		return 0
	}
	return getFloat(d, b)
}

func signed(d Datatype) bool { return d == Int8 || d == Int16 || d == Int32 || d == Int64 }

func getUint(b []byte) uint64 {
	var x [8]byte
	copy(x[:], b)
	return binary.LittleEndian.Uint64(x[:])
}

func putUint(b []byte, v uint64) {
	var x [8]byte
	binary.LittleEndian.PutUint64(x[:], v)
	copy(b, x[:len(b)])
}

// sext sign-extends the low bits of v of a size-byte signed integer.
func sext(v uint64, size int) int64 {
	s := uint(64 - 8*size)
	return int64(v<<s) >> s
}

func applyInt(op Op, d Datatype, te, se, oe []byte) {
	size := len(te)
	t, s := getUint(te), getUint(se)
	var o uint64
	if oe != nil {
		o = getUint(oe)
	}
	less := func(a, b uint64) bool { // a < b in the type
		if signed(d) {
			return sext(a, size) < sext(b, size)
		}
		return a < b
	}
	eq := func(a, b uint64) bool {
		m := ^uint64(0) >> uint(64-8*size)
		return a&m == b&m
	}
	b2u := func(b bool) uint64 {
		if b {
			return 1
		}
		return 0
	}
	r := t
	switch op {
	case OpMin:
		if less(s, t) {
			r = s
		}
	case OpMax:
		if less(t, s) {
			r = s
		}
	case OpSum:
		r = t + s
	case OpProd:
		r = t * s
	case OpLOr:
		r = b2u(!eq(t, 0) || !eq(s, 0))
	case OpLAnd:
		r = b2u(!eq(t, 0) && !eq(s, 0))
	case OpBOr:
		r = t | s
	case OpBAnd:
		r = t & s
	case OpLXor:
		r = b2u(!eq(t, 0) != !eq(s, 0))
	case OpBXor:
		r = t ^ s
	case OpSwap:
		r = s
	case OpCSwap:
		if eq(o, t) {
			r = s
		}
	case OpCSwapNE:
		if !eq(o, t) {
			r = s
		}
	case OpCSwapLE:
		if !less(t, o) {
			r = s
		}
	case OpCSwapLT:
		if less(o, t) {
			r = s
		}
	case OpCSwapGE:
		if !less(o, t) {
			r = s
		}
	case OpCSwapGT:
		if less(t, o) {
			r = s
		}
	case OpMSwap:
		r = s&o | t&^o
	}
	putUint(te, r)
}

func applyFloat(op Op, t, s, o float64) float64 {
	switch op {
	case OpMin:
		return min(t, s)
	case OpMax:
		return max(t, s)
	case OpSum:
		return t + s
	case OpProd:
		return t * s
	case OpSwap:
		return s
	case OpCSwap:
		if o == t {
			return s
		}
	case OpCSwapNE:
		if o != t {
			return s
		}
	case OpCSwapLE:
		if o <= t {
			return s
		}
	case OpCSwapLT:
		if o < t {
			return s
		}
	case OpCSwapGE:
		if o >= t {
			return s
		}
	case OpCSwapGT:
		if o > t {
			return s
		}
	}
	return t
}

func applyComplex(op Op, t, s, o complex128) (float64, float64) {
	r := t
	switch op {
	case OpSum:
		r = t + s
	case OpProd:
		r = t * s
	case OpSwap:
		r = s
	case OpCSwap:
		if o == t {
			r = s
		}
	case OpCSwapNE:
		if o != t {
			r = s
		}
	}
	return real(r), imag(r)
}

// getFloat decodes a float, double or x87 long double.
func getFloat(d Datatype, b []byte) float64 {
	switch d {
	case Float:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case Double:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return X87ToFloat64(b)
}

// putFloat encodes a float, double or x87 long double.
func putFloat(d Datatype, b []byte, v float64) {
	switch d {
	case Float:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case Double:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	default:
		Float64ToX87(b, v)
	}
}

// X87ToFloat64 decodes the 80-bit extended value in the first ten bytes of b.
func X87ToFloat64(b []byte) float64 {
	mant := binary.LittleEndian.Uint64(b[0:8])
	se := binary.LittleEndian.Uint16(b[8:10])
	sign := se>>15 != 0
	exp := int(se & 0x7fff)
	var v float64
	switch {
	case exp == 0x7fff:
		if mant<<1 == 0 {
			v = math.Inf(1)
		} else {
			v = math.NaN()
		}
	case exp == 0 && mant == 0:
		v = 0
	default:
		if exp == 0 {
			exp = 1
		}
		v = math.Ldexp(float64(mant), exp-16383-63)
	}
	if sign {
		v = -v
	}
	return v
}

// Float64ToX87 encodes v as an 80-bit extended value in b[0:10] and zeroes the
// padding up to 16 bytes.
func Float64ToX87(b []byte, v float64) {
	for i := range b[:min(len(b), 16)] {
		b[i] = 0
	}
	bits := math.Float64bits(v)
	sign := uint16(bits>>63) << 15
	exp := int(bits >> 52 & 0x7ff)
	frac := bits & (1<<52 - 1)
	var mant uint64
	var e uint16
	switch {
	case exp == 0x7ff:
		e = 0x7fff
		mant = 1 << 63
		if frac != 0 {
			mant |= 1 << 62
		}
	case exp == 0 && frac == 0:
	case exp == 0: // subnormal double: normal in extended precision
		shift := 0
		for frac&(1<<52) == 0 {
			frac <<= 1
			shift++
		}
		e = uint16(1 - 1023 - shift + 16383)
		mant = frac << 11
	default:
		e = uint16(exp - 1023 + 16383)
		mant = (1<<52 | frac) << 11
	}
	binary.LittleEndian.PutUint64(b[0:8], mant)
	binary.LittleEndian.PutUint16(b[8:10], sign|e)
}
