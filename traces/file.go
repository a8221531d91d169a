package traces

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
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
	enc := json.NewEncoder(w)
	var n int64
	k := 0
	for i := range roots {
		r := &roots[i]
		key := c.runKey(r.run)
		tid := TraceID(key, r.trace)
		root := RootSpanID(key, r.trace)
		if err := enc.Encode(c.fileSpan(tid[:], root[:], nil, r)); err != nil {
			return n, err
		}
		n++
		for j := range phases[i] {
			p := &phases[i][j]
			id := phaseSpanID(key, r.trace, p.phase)
			if err := enc.Encode(c.fileSpan(tid[:], id[:], root[:], p)); err != nil {
				return n, err
			}
			n++
		}
		for ; k < len(kept) && kept[k].run == r.run && kept[k].trace == r.trace; k++ {
			s := childSpanID(key, kept[k])
			parent := phaseSpanID(key, r.trace, kept[k].phase)
			if err := enc.Encode(c.fileSpan(tid[:], s[:], parent[:], kept[k])); err != nil {
				return n, err
			}
			n++
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

func (c *Collector) fileSpan(tid, sid, parent []byte, r *record) FileSpan {
	s := FileSpan{TraceID: hex.EncodeToString(tid), SpanID: hex.EncodeToString(sid), Name: r.name,
		StartPS: int64(r.start), EndPS: int64(r.end), Actor: r.actor, Service: serviceOf(c.cfg, r.actor)}
	if parent != nil {
		s.Parent = hex.EncodeToString(parent)
	}
	if len(r.attrs) > 0 || r.root {
		s.Attrs = make(map[string]any, len(r.attrs)+2)
		for _, a := range r.attrs {
			if a.Str != "" {
				s.Attrs[a.Key] = a.Str
			} else {
				s.Attrs[a.Key] = a.Int
			}
		}
		if r.root {
			s.Attrs["message.id"] = fmt.Sprint(r.trace)
			if r.cause != 0 {
				s.Attrs["cause.message.id"] = fmt.Sprint(r.cause)
			}
			if len(c.models) > 1 {
				s.Attrs["run"] = r.run
			}
		}
	}
	return s
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
