package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/seastar-sim/seastar/params"
)

// WriteFileAtomic writes data to path through a temporary file and a rename, so that
// path is either absent or complete, even after a crash or Ctrl-C.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), filePerm); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// WriteJSONFile writes v, indented, to path atomically.
func WriteJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// NormalizeRows returns rows as they read back from JSON: numbers as json.Number, in
// the text encoding/json gives them, so that fresh and resumed points print alike.
// Non-finite floats, which JSON cannot hold, become the strings NaN, +Inf and -Inf.
func NormalizeRows(rows []Row) ([]Row, error) {
	clean := make([]Row, len(rows))
	for i, r := range rows {
		for _, k := range r.Keys {
			v := r.Vals[k]
			if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				v = fmt.Sprintf("%+v", f)
				if math.IsNaN(f) {
					v = "NaN"
				}
			}
			clean[i].Set(k, v)
		}
	}
	b, err := json.Marshal(clean)
	if err != nil {
		return nil, err
	}
	var out []Row
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Set is what the results files are made of.
type Set struct {
	Title  string            // "bench rawdma", for plot titles
	Keys   []string          // swept keys, in --vary order
	Kinds  map[string]string // the parameter kind of each swept key (params.Kind*)
	IsID   func(string) bool // identifying row fields (nil: none)
	Points []*Point          // in point order
}

// Point is a point's results.
type Point struct {
	Index  int
	Values []params.KV // the swept values, in the order of Set.Keys
	Rows   []Row       // normalized (NormalizeRows)
}

// Tidy returns the tidy table of rs. Columns: point (its index), row (the row's index
// within the point), every swept key (a number in base SI units when the key's kind
// has one, see params.SI; else its text) followed, for keys with units, by KEY_text
// (the value as given, for display), every identifying field found in the rows (in order of first
// appearance; empty where a row lacks it), metric (a non-identifying field) and value.
// One record per point x row x metric. docs/results.md describes it.
func (rs *Set) Tidy() (cols []string, recs [][]any) {
	var ids []string
	for _, p := range rs.Points {
		for _, r := range p.Rows {
			for _, k := range r.Keys {
				if rs.IsID != nil && rs.IsID(k) && !slices.Contains(ids, k) && !slices.Contains(rs.Keys, k) {
					ids = append(ids, k)
				}
			}
		}
	}
	cols = []string{"point", "row"}
	numeric, text := make([]bool, len(rs.Keys)), make([]bool, len(rs.Keys))
	for i, k := range rs.Keys {
		cols = append(cols, k)
		numeric[i] = rs.numericKind(k)
		// A value with units (not a count, not a plain number): keep the text as given.
		text[i] = params.SIUnit(rs.Kinds[k]) != "" && params.SIUnit(rs.Kinds[k]) != "count"
		if text[i] {
			cols = append(cols, k+textSuffix)
		}
	}
	cols = append(append(cols, ids...), "metric", "value")
	for _, p := range rs.Points {
		for ri, r := range p.Rows {
			prefix := []any{json.Number(fmt.Sprint(p.Index)), json.Number(fmt.Sprint(ri))}
			for i, kv := range p.Values {
				if !numeric[i] {
					prefix = append(prefix, kv.Value)
					continue
				}
				v, _, ok := params.SI(rs.Kinds[kv.Key], kv.Value)
				switch {
				case !ok:
					prefix = append(prefix, nil)
				default:
					prefix = append(prefix, json.Number(v))
				}
				if text[i] {
					prefix = append(prefix, kv.Value)
				}
			}
			for _, k := range ids {
				v, _ := r.Get(k)
				prefix = append(prefix, v)
			}
			for _, k := range r.Keys {
				if slices.Contains(ids, k) || (rs.IsID != nil && rs.IsID(k)) {
					continue
				}
				recs = append(recs, append(slices.Clone(prefix), k, r.Vals[k]))
			}
		}
	}
	return cols, recs
}

// textSuffix names the column of a swept key's value as given ("250MHz") beside its
// numeric column in base units.
const textSuffix = "_text"

// numericKind reports whether swept key k has a numeric kind (params.SI has a unit
// for it).
func (rs *Set) numericKind(k string) bool {
	return params.SIUnit(rs.Kinds[k]) != "" || rs.Kinds[k] == params.KindFloat
}

// Units is the units table of rs (units.csv): every column of the tidy table with a
// unit, the swept keys' numeric columns and the metrics whose names carry one.
func (rs *Set) Units(cols []string, recs [][]any) [][]string {
	out := [][]string{{"column", "unit", "kind"}}
	for _, k := range rs.Keys {
		if rs.numericKind(k) {
			out = append(out, []string{k, params.SIUnit(rs.Kinds[k]), rs.Kinds[k]})
		}
	}
	mi := slices.Index(cols, "metric")
	seen := map[string]bool{}
	for _, rec := range recs {
		m, _ := rec[mi].(string)
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		if u := metricUnit(m); u != "" {
			out = append(out, []string{m, u, "metric"})
		}
	}
	return out
}

// metricUnit is the unit a metric's name ends with (docs/design.md section 8's suffixes):
// latency_us is in microseconds, bandwidth_MBps in MB/s (10^6 B/s), ...; "" if none.
func metricUnit(m string) string {
	for _, s := range [][2]string{{"_us", "us"}, {"_ns", "ns"}, {"_ms", "ms"}, {"_s", "s"}, {"_MBps", "MB/s"},
		{"_GBps", "GB/s"}, {"_bytes", "B"}, {"_per_s", "1/s"}, {"_pct", "%"}, {"_frac", "1"}} {
		if strings.HasSuffix(m, s[0]) {
			return s[1]
		}
	}
	return ""
}

// CellText is the CSV text of a tidy value.
func CellText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return fmt.Sprint(v)
}

// WriteTidyCSV writes the tidy table as CSV.
func WriteTidyCSV(w io.Writer, cols []string, recs [][]any) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(cols)
	line := make([]string, len(cols))
	for _, rec := range recs {
		for i, v := range rec {
			line[i] = CellText(v)
		}
		_ = cw.Write(line)
	}
	cw.Flush()
	return cw.Error()
}

// WriteTidyJSON writes the tidy table as a JSON array of objects, one per record,
// with the columns as keys in order; a missing identifying field is null.
func WriteTidyJSON(w io.Writer, cols []string, recs [][]any) error {
	var buf bytes.Buffer
	buf.WriteString("[")
	for i, rec := range recs {
		var r Row
		for j, c := range cols {
			r.Set(c, rec[j])
		}
		b, err := r.MarshalJSON()
		if err != nil {
			return err
		}
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n  ")
		buf.Write(b)
	}
	buf.WriteString("\n]\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteFiles writes results.csv, results.json and the plots of rs into o, and
// returns the plot files written and notes about them.
func WriteFiles(dir string, rs *Set) (plots, notes []string, err error) {
	cols, recs := rs.Tidy()
	var csvBuf, jsonBuf bytes.Buffer
	if err := WriteTidyCSV(&csvBuf, cols, recs); err != nil {
		return nil, nil, err
	}
	if err := WriteTidyJSON(&jsonBuf, cols, recs); err != nil {
		return nil, nil, err
	}
	if err := WriteFileAtomic(filepath.Join(dir, ResultsCSV), csvBuf.Bytes()); err != nil {
		return nil, nil, err
	}
	if err := WriteFileAtomic(filepath.Join(dir, ResultsJSON), jsonBuf.Bytes()); err != nil {
		return nil, nil, err
	}
	if acols, arecs, ok := aggregate(cols, recs); ok {
		var aCSV, aJSON bytes.Buffer
		if err := WriteTidyCSV(&aCSV, acols, arecs); err != nil {
			return nil, nil, err
		}
		if err := WriteTidyJSON(&aJSON, acols, arecs); err != nil {
			return nil, nil, err
		}
		if err := WriteFileAtomic(filepath.Join(dir, AggregateCSV), aCSV.Bytes()); err != nil {
			return nil, nil, err
		}
		if err := WriteFileAtomic(filepath.Join(dir, AggregateJSON), aJSON.Bytes()); err != nil {
			return nil, nil, err
		}
	}
	var unitsBuf bytes.Buffer
	cw := csv.NewWriter(&unitsBuf)
	_ = cw.WriteAll(rs.Units(cols, recs))
	if err := WriteFileAtomic(filepath.Join(dir, UnitsCSV), unitsBuf.Bytes()); err != nil {
		return nil, nil, err
	}
	plots, notes, err = rs.WritePlots(dir)
	if err != nil || len(rs.Keys) == 0 {
		return plots, notes, err
	}
	more, moreNotes, err := rs.sweepPlots(dir, &Table{cols: cols, recs: recs})
	return append(plots, more...), append(notes, moreNotes...), err
}
