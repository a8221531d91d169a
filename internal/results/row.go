package results

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Row is one output row: field name to value, printed in insertion order.
type Row struct {
	Keys []string       // field names in insertion order
	Vals map[string]any // field values
}

func (r *Row) Set(k string, v any) {
	if r.Vals == nil {
		r.Vals = map[string]any{}
	}
	if _, ok := r.Vals[k]; !ok {
		r.Keys = append(r.Keys, k)
	}
	r.Vals[k] = v
}

// MarshalJSON keeps the row's field order.
func (r Row) MarshalJSON() ([]byte, error) {
	buf := []byte{'{'}
	for i, k := range r.Keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(r.Vals[k])
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, kb...), ':'), vb...)
	}
	return append(buf, '}'), nil
}

// UnmarshalJSON reads a row that MarshalJSON wrote, keeping the field order; numbers
// become json.Number, so that they print again exactly as they were written.
func (r *Row) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("row: want a JSON object")
	}
	*r = Row{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("row: %w", err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("row: field %v: %w", tok, err)
		}
		r.Set(tok.(string), v)
	}
	_, err := dec.Token()
	return err
}

// Get returns the value of field k and whether the row has it.
func (r *Row) Get(k string) (any, bool) {
	v, ok := r.Vals[k]
	return v, ok
}
