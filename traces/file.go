package traces

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// writeFile writes the roots and the kept stages, one JSON object per line, each
// message's root first and its stages in time order: the order and the content depend
// only on the simulation, so the file is the same for every worker count.
func (c *Collector) writeFile(roots []record, phases [][]record) (int64, error) {
	kept := c.kept.sorted()
	f, err := os.Create(c.cfg.File)
	if err != nil {
		return 0, fmt.Errorf("trace file: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	var (
		n    int64
		line []byte
		enc  lineEncoder
	)
	// A failed write fails the Flush at the end (a bufio.Writer keeps its first error
	// and writes nothing after it); n counts the lines written before it.
	put := func(tid, sid, parent []byte, r *record) {
		line = enc.appendSpan(line[:0], c, tid, sid, parent, r)
		if _, err := w.Write(line); err == nil {
			n++
		}
	}
	k := 0
	for i := range roots {
		r := &roots[i]
		key := c.runKey(r.run)
		tid := TraceID(key, r.trace)
		root := RootSpanID(key, r.trace)
		put(tid[:], root[:], nil, r)
		for j := range phases[i] {
			p := &phases[i][j]
			id := phaseSpanID(key, r.trace, p.phase)
			put(tid[:], id[:], root[:], p)
		}
		for ; k < len(kept) && kept[k].run == r.run && kept[k].trace == r.trace; k++ {
			s := childSpanID(key, kept[k])
			parent := phaseSpanID(key, r.trace, kept[k].phase)
			put(tid[:], s[:], parent[:], kept[k])
		}
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return n, fmt.Errorf("trace file: %w", err)
	}
	if err := f.Close(); err != nil {
		return n, fmt.Errorf("trace file: %w", err)
	}
	return n, nil
}

// lineEncoder writes a span as a line of the trace file: the bytes encoding/json's
// Encoder writes for the FileSpan of the span (TestTraceFileLinesAreEncodingJSON
// compares them), without the map, strings and reflection that cost a traced run of
// millions of spans most of its writing time, in collections of the spans it keeps.
type lineEncoder struct {
	attrs []lineAttr
}

// lineAttr is an attribute of a span as FileSpan.Attrs holds it.
type lineAttr struct {
	key   string
	str   string // the value, if isStr
	num   int64  // else the value
	isStr bool
}

// appendSpan appends the line of span r (its trace id, span id and parent's, nil for
// none) to b.
func (e *lineEncoder) appendSpan(b []byte, c *Collector, tid, sid, parent []byte, r *record) []byte {
	b = append(b, `{"trace_id":"`...)
	b = hex.AppendEncode(b, tid)
	b = append(b, `","span_id":"`...)
	b = hex.AppendEncode(b, sid)
	b = append(b, '"')
	if parent != nil {
		b = append(b, `,"parent_span_id":"`...)
		b = hex.AppendEncode(b, parent)
		b = append(b, '"')
	}
	b = append(b, `,"name":`...)
	b = appendJSONString(b, r.name)
	b = append(b, `,"start_ps":`...)
	b = strconv.AppendInt(b, int64(r.start), 10)
	b = append(b, `,"end_ps":`...)
	b = strconv.AppendInt(b, int64(r.end), 10)
	if r.actor != "" {
		b = append(b, `,"actor":`...)
		b = appendJSONString(b, r.actor)
	}
	if svc := serviceOf(c.cfg, r.actor); svc != "" {
		b = append(b, `,"service":`...)
		b = appendJSONString(b, svc)
	}
	if len(r.attrs) > 0 || r.root {
		b = e.appendAttrs(b, c, r)
	}
	return append(b, "}\n"...)
}

// appendAttrs appends the attributes of r as FileSpan.Attrs has them: a key set twice
// keeps its last value, a root's message ids (and run, if the collector has several)
// are set last.
func (e *lineEncoder) appendAttrs(b []byte, c *Collector, r *record) []byte {
	as := e.attrs[:0]
	for _, a := range r.attrs {
		as = setAttr(as, attrOf(a))
	}
	if r.root {
		as = setAttr(as, lineAttr{key: "message.id", str: strconv.FormatUint(r.trace, 10), isStr: true})
		if r.cause != 0 {
			as = setAttr(as, lineAttr{key: "cause.message.id", str: strconv.FormatUint(r.cause, 10), isStr: true})
		}
		if len(c.models) > 1 {
			as = setAttr(as, lineAttr{key: "run", num: int64(r.run)})
		}
	}
	e.attrs = as
	b = append(b, `,"attrs":`...)
	return appendJSONObject(b, as)
}

// attrOf is span attribute a as FileSpan.Attrs holds it: a string if it has one, else
// its integer.
func attrOf(a actors.Attr) lineAttr {
	return lineAttr{key: a.Key, str: a.Str, num: a.Int, isStr: a.Str != ""}
}

// setAttr sets a in as, as a map assignment would: a key already there takes the new
// value in place.
func setAttr(as []lineAttr, a lineAttr) []lineAttr {
	for i := range as {
		if as[i].key == a.key {
			as[i] = a
			return as
		}
	}
	return append(as, a)
}

// appendJSONObject appends as (distinct keys) as encoding/json writes a
// map[string]any of them: keys sorted, strings and integers. It sorts as.
func appendJSONObject(b []byte, as []lineAttr) []byte {
	slices.SortFunc(as, func(x, y lineAttr) int { return strings.Compare(x.key, y.key) })
	b = append(b, '{')
	for i, a := range as {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, a.key)
		b = append(b, ':')
		if a.isStr {
			b = appendJSONString(b, a.str)
		} else {
			b = strconv.AppendInt(b, a.num, 10)
		}
	}
	return append(b, '}')
}

// appendJSONString appends s as encoding/json writes a string: as it is when every
// byte is printable ASCII that needs no escape (names of blocks, stages and
// attributes are), else as json.Marshal escapes it.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// nodeOf returns the node part of a hierarchical actor name ("node[1,0,0]" of
// "node[1,0,0].router.xp"), or "" when the actor is not inside a node.
func nodeOf(actor string) string {
	if !strings.HasPrefix(actor, "node[") {
		return ""
	}
	if i := strings.IndexByte(actor, ']'); i > 0 {
		return actor[:i+1]
	}
	return ""
}
