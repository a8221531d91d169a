package params

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// text returns the current value of l in the text form parse accepts.
func (l *leaf) text() string {
	v := l.v
	switch l.Kind {
	case KindInt:
		return strconv.FormatInt(v.Int(), 10)
	case KindUint:
		return strconv.FormatUint(v.Uint(), 10)
	case KindFloat:
		return strconv.FormatFloat(v.Float(), 'g', -1, v.Type().Bits())
	case KindBool:
		return strconv.FormatBool(v.Bool())
	case KindString, KindEnum:
		return v.String()
	}
	b, _ := v.Interface().(encoding.TextMarshaler).MarshalText() // unit types never fail
	return string(b)
}

// parse converts value to a value of l's field type, without storing it.
func (l *leaf) parse(value string) (reflect.Value, error) {
	typ := l.v.Type()
	nv := reflect.New(typ).Elem()
	s := strings.TrimSpace(value)
	switch l.Kind {
	case KindInt:
		n, err := strconv.ParseInt(s, 10, typ.Bits())
		if err != nil {
			lo, hi := -int64(1)<<(typ.Bits()-1), int64(1)<<(typ.Bits()-1)-1
			return nv, l.numberError(value, err, "a decimal integer such as 42", fmt.Sprint(lo), fmt.Sprint(hi))
		}
		nv.SetInt(n)
	case KindUint:
		n, err := strconv.ParseUint(s, 10, typ.Bits())
		if err != nil {
			hi := uint64(math.MaxUint64) >> (64 - typ.Bits())
			return nv, l.numberError(value, err, "a decimal integer >= 0 such as 42", "0", fmt.Sprint(hi))
		}
		nv.SetUint(n)
	case KindFloat:
		f, err := strconv.ParseFloat(s, typ.Bits())
		if err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return nv, invalidValue(l, value, "not a finite number")
		}
		if err != nil {
			return nv, l.numberError(value, err, "a decimal number such as 0.5 or 1e-3", "", "")
		}
		nv.SetFloat(f)
	case KindBool:
		switch strings.ToLower(s) {
		case "true", "1":
			nv.SetBool(true)
		case "false", "0":
		default:
			return nv, invalidValue(l, value, "want true, false, 1 or 0")
		}
	case KindEnum:
		if !slices.Contains(l.Enum, s) {
			return nv, invalidValue(l, value, "want "+orList(l.Enum))
		}
		nv.SetString(s)
	case KindString:
		if !utf8.ValidString(value) { // YAML could not carry it back
			return nv, invalidValue(l, value, "not valid UTF-8")
		}
		nv.SetString(value)
	default: // unit types
		if err := nv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(value)); err != nil {
			return nv, &Error{kind: ErrInvalid, Key: l.Key, cause: err,
				msg: l.Key + ": " + strings.TrimPrefix(err.Error(), "actors: ")}
		}
	}
	return nv, nil
}

// numberError explains a strconv error for value: out of range [lo, hi], or not
// of the form want.
func (l *leaf) numberError(value string, err error, want, lo, hi string) error {
	if errors.Is(err, strconv.ErrRange) {
		if lo == "" {
			return invalidValue(l, value, "out of range")
		}
		return invalidValue(l, value, fmt.Sprintf("out of range [%s, %s]", lo, hi))
	}
	return invalidValue(l, value, "want "+want)
}
