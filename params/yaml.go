package params

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// LoadYAML sets the parameters given in a YAML document: a mapping whose keys are
// group names holding mappings (router: {link_bandwidth: 2.5GB/s}) or dotted keys
// (router.link_bandwidth: 2.5GB/s), mixed freely at any level. Every value is a
// scalar, taken as its text and parsed as by Set. An empty document sets nothing.
//
// Errors carry the line ("line 3: unknown parameter ..."): an unknown key (as
// for Set), a bad value, a value that is not a scalar, a group given something
// other than a mapping (or null, for an empty group), a key given twice in a
// mapping or a parameter set twice (by nested and dotted keys), or malformed YAML.
// Either every value applies or, on error, none does.
func (t *Tree) LoadYAML(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return yamlSyntaxError(err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		if err != nil {
			return yamlSyntaxError(err)
		}
		return &Error{kind: ErrInvalid, Line: next.Line, msg: "a second YAML document: want one mapping of parameters"}
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := deref(doc.Content[0])
	if isNull(root) {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return &Error{kind: ErrInvalid, Line: root.Line,
			msg: "want a mapping of parameter keys at the top level, got " + nodeKind(root)}
	}
	l := yamlLoader{t: t, set: map[string]int{}}
	if err := l.group("", root); err != nil {
		return err
	}
	return t.apply(l.as)
}

// yamlLoader collects the assignments of a YAML document.
type yamlLoader struct {
	t   *Tree
	as  []assignment
	set map[string]int // line where each parameter was set
}

// group collects the keys of mapping m, which holds the keys of group prefix.
func (l *yamlLoader) group(prefix string, m *yaml.Node) error {
	seen := map[string]int{} // key text -> line, for duplicate keys in m
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := deref(m.Content[i]), deref(m.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return &Error{kind: ErrInvalid, Key: prefix, Line: k.Line,
				msg: fmt.Sprintf("want a parameter name as key%s, got %s", inGroup(prefix), nodeKind(k))}
		}
		if k.Tag == "!!merge" {
			return &Error{kind: ErrInvalid, Key: prefix, Line: k.Line,
				msg: fmt.Sprintf("merge key <<%s: not supported, write the keys out", inGroup(prefix))}
		}
		if first, dup := seen[k.Value]; dup {
			return &Error{kind: ErrInvalid, Key: joinKey(prefix, k.Value), Line: k.Line,
				msg: fmt.Sprintf("duplicate key %q%s (first at line %d)", k.Value, inGroup(prefix), first)}
		}
		seen[k.Value] = k.Line
		key := joinKey(prefix, k.Value)
		if _, ok := l.t.byKey[key]; ok {
			if v.Kind != yaml.ScalarNode {
				return &Error{kind: ErrInvalid, Key: key, Line: v.Line,
					msg: fmt.Sprintf("%s: want a scalar value (%s), got %s", key, l.t.byKey[key].Kind, nodeKind(v))}
			}
			if first, dup := l.set[key]; dup {
				return &Error{kind: ErrInvalid, Key: key, Line: k.Line,
					msg: fmt.Sprintf("%s: set twice (first at line %d)", key, first)}
			}
			l.set[key] = k.Line
			l.as = append(l.as, assignment{key: key, value: v.Value, line: v.Line})
			continue
		}
		if _, ok := l.t.groups[key]; !ok || key == "" {
			return atLine(l.t.unknown(key), k.Line)
		}
		switch {
		case v.Kind == yaml.MappingNode:
			if err := l.group(key, v); err != nil {
				return err
			}
		case !isNull(v):
			return &Error{kind: ErrInvalid, Key: key, Line: v.Line,
				msg: fmt.Sprintf("%s: is a group: want a mapping of its keys, got %s", key, nodeKind(v))}
		}
	}
	return nil
}

// MarshalYAML returns the resolved configuration as a YAML document that LoadYAML
// reads back to the same Values: one mapping per group, keys sorted, values in
// their text form.
func (t *Tree) MarshalYAML() ([]byte, error) {
	nodes := map[string]*yaml.Node{"": {Kind: yaml.MappingNode}}
	var ensure func(key string) *yaml.Node
	ensure = func(key string) *yaml.Node {
		if n, ok := nodes[key]; ok {
			return n
		}
		n := &yaml.Node{Kind: yaml.MappingNode}
		p := ensure(parentKey(key))
		p.Content = append(p.Content, scalar(lastSegment(key)), n)
		nodes[key] = n
		return n
	}
	// Keys sorted as full keys are sorted segment by segment, because '.' sorts
	// before every character a key segment may hold.
	for _, l := range t.leaves {
		g := ensure(parentKey(l.Key))
		v := scalar(l.text())
		if l.Kind == KindString || l.Kind == KindEnum {
			v.Tag = "!!str" // quoted if it would read as another type: "", "true", "1"
		}
		g.Content = append(g.Content, scalar(lastSegment(l.Key)), v)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(nodes[""]); err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	return buf.Bytes(), nil
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

// maxAliasDepth bounds alias chains; the parser does not produce longer ones.
const maxAliasDepth = 8

// deref returns the node an alias refers to, or n.
func deref(n *yaml.Node) *yaml.Node {
	for range maxAliasDepth {
		if n.Kind != yaml.AliasNode || n.Alias == nil {
			break
		}
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// maxQuoted is how many characters of a scalar a message quotes.
const maxQuoted = 40

// nodeKind names the kind of n for messages.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.ScalarNode:
		v := n.Value
		if r := []rune(v); len(r) > maxQuoted {
			v = string(r[:maxQuoted]) + "..."
		}
		return fmt.Sprintf("the scalar %q", v)
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
}

func inGroup(prefix string) string {
	if prefix == "" {
		return ""
	}
	return " in group " + prefix
}

// yamlSyntaxError wraps an error of the YAML parser.
func yamlSyntaxError(err error) error {
	return &Error{kind: ErrInvalid, cause: err, msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
}
