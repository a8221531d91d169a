package traces

import (
	"cmp"
	"slices"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// Phases: between a message's root span and its stages, one span per part of the path
// the stages ran in: the host and the NIC of each node, and the network (the routers
// and switches). The collector groups stages by the node and kind of their block as
// they arrive (phaseKey), and names the groups by their role once the message is
// whole: the initiator is the node of the root span (else of the first stage). The
// stages a protocol marks as completing the message at its initiator (Span.Completion:
// a send's TX-done handling) form a completion phase; other stages of the initiator
// after the message has been elsewhere (an ack's handling) stay in its host or NIC
// phase.

// completionPhase is the key of the completion phase: the stages the protocol marked
// Span.Completion (a send's completion at its initiator), wherever they ran.
const completionPhase = "completion"

// phaseKey groups a stage run on actor: "network", or "node[...] host" or
// "node[...] nic".
func phaseKey(actor string) string {
	n := nodeOf(actor)
	if n == "" {
		return "network" // switches and anything outside the nodes
	}
	block := strings.TrimPrefix(actor[len(n):], ".")
	switch {
	case block == "host":
		return n + " host"
	case strings.HasPrefix(block, "router"):
		return "network"
	}
	return n + " nic"
}

// phase is what the collector knows of one phase of a message.
type phase struct {
	key        string
	start, end actors.Time
	stages     int
}

// add extends the message's phase of r.
func (m *message) add(r *record) {
	key := r.phase
	for i := range m.phases {
		if p := &m.phases[i]; p.key == key {
			p.start, p.end = min(p.start, r.start), max(p.end, r.end)
			p.stages++
			return
		}
	}
	m.phases = append(m.phases, phase{key: key, start: r.start, end: r.end, stages: 1})
	if len(m.phases) == 1 || recordCmp(r, &m.first) < 0 {
		m.first = *r
		m.first.attrs = nil
	}
}

// phaseRecords are the phase spans of m, in start order, named by their role.
func phaseRecords(m *message, root *record) []record {
	initiator := nodeOf(root.actor)
	if initiator == "" && len(m.phases) > 0 {
		initiator = nodeOf(m.first.actor)
	}
	ps := slices.Clone(m.phases)
	slices.SortFunc(ps, func(a, b phase) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end), strings.Compare(a.key, b.key))
	})
	out := make([]record, 0, len(ps))
	for _, p := range ps {
		name, node, kind := "network", "", ""
		switch p.key {
		case "network":
		case completionPhase:
			name, node = "completion", initiator
		default:
			node, kind, _ = strings.Cut(p.key, " ")
			role := "target"
			if node == initiator {
				role = "initiator"
			}
			name = role + " " + map[string]string{"host": "host", "nic": "NIC"}[kind]
		}
		attrs := []actors.Attr{actors.StrAttr("phase", p.key), actors.IntAttr("stages", int64(p.stages))}
		if node != "" {
			attrs = append(attrs, actors.StrAttr("node", node))
		}
		out = append(out, record{trace: m.id, run: m.run, name: "phase/" + name, actor: node, start: p.start, end: p.end,
			attrs: attrs, phase: p.key, isPhase: true})
	}
	return out
}
