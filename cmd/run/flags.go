package main

import (
	"encoding"
	"fmt"

	"github.com/spf13/pflag"
)

// textValue adapts a unit-typed value (actors.Duration, actors.Time, actors.Prob, ...)
// to a command-line flag, so flags use the same parser as every parameter.
type textValue[T any] struct {
	v    *T
	kind string
}

type textVar interface {
	encoding.TextUnmarshaler
	fmt.Stringer
}

func newTextValue[T any](v *T, kind string) *textValue[T] { return &textValue[T]{v: v, kind: kind} }

func (t *textValue[T]) Set(s string) error { return any(t.v).(textVar).UnmarshalText([]byte(s)) }
func (t *textValue[T]) String() string     { return any(t.v).(textVar).String() }
func (t *textValue[T]) Type() string       { return t.kind }

var _ pflag.Value = (*textValue[int])(nil)
