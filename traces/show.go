package traces

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// FileSpan is one line of the JSON-lines trace file (--trace-file).
type FileSpan struct {
	TraceID string         `json:"trace_id"`
	SpanID  string         `json:"span_id"`
	Parent  string         `json:"parent_span_id,omitempty"`
	Name    string         `json:"name"`
	StartPS int64          `json:"start_ps"`
	EndPS   int64          `json:"end_ps"`
	Actor   string         `json:"actor,omitempty"`
	Service string         `json:"service,omitempty"` // the node the span ran on (its OTLP service), else the run's service
	Attrs   map[string]any `json:"attrs,omitempty"`
}

// Message is one traced message of a trace file: its root span and its stages.
type Message struct {
	Root   FileSpan
	Stages []FileSpan // in start order
}

// ID is the message id the root span carries ("" if none).
func (m *Message) ID() string {
	if v, ok := m.Root.Attrs["message.id"]; ok {
		return fmt.Sprint(v)
	}
	return ""
}

// Duration is the message's life in picoseconds: from its first stage to its last.
func (m *Message) Duration() int64 {
	start, end := m.Root.StartPS, m.Root.EndPS
	for _, s := range m.Stages {
		start, end = min(start, s.StartPS), max(end, s.EndPS)
	}
	return end - start
}

// ReadFile reads a JSON-lines trace file into its messages, in file order. A line
// that is not a span is an error naming the line.
func ReadFile(r io.Reader) ([]*Message, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	var msgs []*Message
	byTrace := map[string]*Message{}
	var orphans []FileSpan
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var s FileSpan
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("line %d: not a span: %v", line, err)
		}
		if s.TraceID == "" || s.Name == "" || s.EndPS < s.StartPS {
			return nil, fmt.Errorf("line %d: not a span (needs trace_id, name and end_ps >= start_ps)", line)
		}
		if s.Parent == "" {
			m := &Message{Root: s}
			byTrace[s.TraceID] = m
			msgs = append(msgs, m)
			continue
		}
		if m := byTrace[s.TraceID]; m != nil {
			m.Stages = append(m.Stages, s)
		} else {
			orphans = append(orphans, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, s := range orphans { // stages written before their root
		if m := byTrace[s.TraceID]; m != nil {
			m.Stages = append(m.Stages, s)
		}
	}
	for _, m := range msgs {
		slices.SortStableFunc(m.Stages, func(a, b FileSpan) int { return cmp.Compare(a.StartPS, b.StartPS) })
	}
	return msgs, nil
}

// Waterfall writes a terminal view of message m: one line per stage with its start
// (from the message's first stage) and duration in nanoseconds, the block it ran on,
// and a bar placing it in the message's life, width characters wide.
func Waterfall(w io.Writer, m *Message, width int) error {
	start := m.Root.StartPS
	for _, s := range m.Stages {
		start = min(start, s.StartPS)
	}
	total := max(m.Duration(), 1)
	var b strings.Builder
	fmt.Fprintf(&b, "%s", m.Root.Name)
	if id := m.ID(); id != "" {
		fmt.Fprintf(&b, "  message %s", id)
	}
	fmt.Fprintf(&b, "  %.3f ns", float64(m.Duration())/1000)
	keys := make([]string, 0, len(m.Root.Attrs))
	for k := range m.Root.Attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k != "message.id" {
			fmt.Fprintf(&b, "  %s=%v", k, m.Root.Attrs[k])
		}
	}
	b.WriteString("\n")
	// Phases (children of the root) with their stages below them, indented.
	phases := map[string]bool{}
	for _, s := range m.Stages {
		if s.Parent == m.Root.SpanID {
			phases[s.SpanID] = true
		}
	}
	var lines []FileSpan
	var indent []int
	for _, p := range m.Stages {
		if !phases[p.SpanID] {
			continue
		}
		lines, indent = append(lines, p), append(indent, 0)
		for _, s := range m.Stages {
			if s.Parent == p.SpanID {
				lines, indent = append(lines, s), append(indent, 2)
			}
		}
	}
	for _, s := range m.Stages { // stages of a file without phases
		if !phases[s.SpanID] && !phases[s.Parent] {
			lines, indent = append(lines, s), append(indent, 0)
		}
	}
	nameW, actorW := len("stage"), len("block")
	for i, s := range lines {
		nameW, actorW = max(nameW, indent[i]+len(s.Name)), max(actorW, len(s.Actor))
	}
	fmt.Fprintf(&b, "  %-*s  %-*s  %12s  %12s  %s\n", nameW, "stage", actorW, "block", "start_ns", "duration_ns", "")
	for i, s := range lines {
		from := int((s.StartPS - start) * int64(width) / total)
		to := int((s.EndPS - start) * int64(width) / total)
		to = max(to, from+1)
		from, to = min(from, width-1), min(to, width)
		bar := strings.Repeat(" ", from) + strings.Repeat("#", to-from) + strings.Repeat(" ", width-to)
		fmt.Fprintf(&b, "  %-*s  %-*s  %12.3f  %12.3f  |%s|\n", nameW, strings.Repeat(" ", indent[i])+s.Name, actorW, s.Actor,
			float64(s.StartPS-start)/1000, float64(s.EndPS-s.StartPS)/1000, bar)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
