package params

import (
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// Param describes one parameter of a Tree: what `run params` lists.
type Param struct {
	Key     string   // full dotted key, e.g. "router.link_bandwidth"
	Kind    string   // duration, time, freq, size, bandwidth, prob, int, uint, float, bool, string or enum
	Unit    string   // accepted units, from actors.UnitsHelp; "" for kinds without units
	Default string   // text form of the value when the Tree was built (the default, if built on defaults)
	Value   string   // text form of the current value
	Help    string   // the field's help tag
	Source  string   // the field's source tag: where the default comes from
	Enum    []string // the accepted values of an enum, in tag order; nil for other kinds
}

// KV is one resolved parameter: its full key and the text form of its value.
type KV struct {
	Key   string
	Value string
}

// Tree is the configuration of a simulation as a set of keyed parameters, bound to
// the struct it was built from: Set, LoadYAML and ApplyArgs modify that struct in
// place. A Tree is not safe for concurrent use.
type Tree struct {
	leaves    []*leaf           // sorted by key
	byKey     map[string]*leaf  // the same leaves, by key
	groups    map[string]*group // every group by key, the root as ""
	groupKeys []string          // keys of groups, sorted; the root "" first
}

// leaf is one parameter: a settable field of the bound struct.
type leaf struct {
	Param               // Value is unused: text gives the current value
	v     reflect.Value // the addressable field
}

// group is a struct of the tree: the root or a field with a param tag.
type group struct {
	v    reflect.Value // addressable struct
	keys []string      // full keys of every leaf under the group, sorted
}

// Kinds of parameters, as in Param.Kind.
const (
	KindDuration  = "duration"
	KindTime      = "time"
	KindFreq      = "freq"
	KindSize      = "size"
	KindBandwidth = "bandwidth"
	KindProb      = "prob"
	KindInt       = "int"
	KindUint      = "uint"
	KindFloat     = "float"
	KindBool      = "bool"
	KindString    = "string"
	KindEnum      = "enum"
)

// unitKinds maps each unit type of package actors to its kind.
var unitKinds = map[reflect.Type]string{
	reflect.TypeFor[actors.Duration]():  KindDuration,
	reflect.TypeFor[actors.Time]():      KindTime,
	reflect.TypeFor[actors.Freq]():      KindFreq,
	reflect.TypeFor[actors.Bytes]():     KindSize,
	reflect.TypeFor[actors.Bandwidth](): KindBandwidth,
	reflect.TypeFor[actors.Prob]():      KindProb,
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
)

// validator is implemented by parameter structs that check their values.
type validator interface{ Validate() error }

// New builds the Tree of root, a non-nil pointer to a struct, and binds it to that
// struct. Every field with a `param:"name"` tag is a parameter, or a group of
// parameters (keys name.xxx) if its type is a struct other than a unit type;
// `param:"-"` and fields without the tag are ignored. A parameter field may also
// carry `help:"..."`, `source:"..."` and, for strings, `enum:"a|b|c"`. The current
// values become the Default of every Param.
//
// New returns an error naming the field for a malformed tag, a duplicate key, an
// unexported field or a type without a kind.
func New(root any) (*Tree, error) {
	rv := reflect.ValueOf(root)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("params: New needs a non-nil pointer to a struct, got %T", root)
	}
	t := &Tree{byKey: map[string]*leaf{}, groups: map[string]*group{}}
	if err := t.addGroup("", rv.Elem(), rv.Elem().Type().Name()); err != nil {
		return nil, err
	}
	slices.SortFunc(t.leaves, func(a, b *leaf) int { return strings.Compare(a.Key, b.Key) })
	slices.Sort(t.groupKeys)
	for _, l := range t.leaves {
		l.Default = l.text()
		for k := parentKey(l.Key); ; k = parentKey(k) {
			g := t.groups[k]
			g.keys = append(g.keys, l.Key)
			if k == "" {
				break
			}
		}
	}
	return t, nil
}

// addGroup adds the struct v (addressable) as the group key, and its fields.
func (t *Tree) addGroup(key string, v reflect.Value, goPath string) error {
	t.groups[key] = &group{v: v}
	t.groupKeys = append(t.groupKeys, key)
	return t.addFields(key, v, goPath, map[string]string{})
}

// addFields adds the fields of struct v to group key. The fields of an embedded struct
// without a param tag are flattened into the group, as encoding/json does; its
// Validate method, promoted to v, validates them with the group.
func (t *Tree) addFields(key string, v reflect.Value, goPath string, names map[string]string) error {
	typ := v.Type()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, ok := f.Tag.Lookup("param")
		if !ok && f.Anonymous && f.IsExported() && f.Type.Kind() == reflect.Struct {
			if err := t.addFields(key, v.Field(i), goPath+"."+f.Name, names); err != nil {
				return err
			}
			continue
		}
		if !ok || name == "-" {
			continue
		}
		path := goPath + "." + f.Name
		if !validName(name) {
			return fmt.Errorf("params: field %s: malformed param tag %q: want lower-case letters, digits "+
				"and underscores, starting with a letter (groups nest by field, not by dots)", path, name)
		}
		if !f.IsExported() {
			return fmt.Errorf("params: field %s: param tag on an unexported field", path)
		}
		if other, dup := names[name]; dup {
			return fmt.Errorf("params: field %s: param %q is also the tag of field %s.%s", path, name, goPath, other)
		}
		names[name] = f.Name
		full := joinKey(key, name)
		fv := v.Field(i)
		kind, err := kindOf(f.Type)
		if err != nil {
			return fmt.Errorf("params: field %s (%s): %w", path, full, err)
		}
		enum, hasEnum := f.Tag.Lookup("enum")
		if kind == "" { // a group
			if hasEnum {
				return fmt.Errorf("params: field %s (%s): enum tag on a group", path, full)
			}
			if err := t.addGroup(full, fv, path); err != nil {
				return err
			}
			continue
		}
		l := &leaf{v: fv, Param: Param{Key: full, Kind: kind, Help: f.Tag.Get("help"),
			Source: f.Tag.Get("source"), Unit: actors.UnitsHelp(fv.Interface())}}
		if hasEnum {
			if kind != KindString {
				return fmt.Errorf("params: field %s (%s): enum tag on a field of kind %s, want a string type", path, full, kind)
			}
			l.Kind = KindEnum
			l.Enum = strings.Split(enum, "|")
			for j, e := range l.Enum {
				if e == "" || slices.Contains(l.Enum[:j], e) {
					return fmt.Errorf("params: field %s (%s): enum tag %q: empty or repeated value", path, full, enum)
				}
			}
		}
		t.leaves = append(t.leaves, l)
		t.byKey[full] = l
	}
	return nil
}

// kindOf returns the kind of a parameter of type typ, "" for a group, or an error if
// typ has no kind.
func kindOf(typ reflect.Type) (string, error) {
	if k, ok := unitKinds[typ]; ok {
		return k, nil
	}
	if reflect.PointerTo(typ).Implements(textUnmarshaler) || typ.Implements(textMarshaler) {
		return "", fmt.Errorf("type %s has its own text form; only the unit types of package actors "+
			"(Duration, Time, Freq, Bytes, Bandwidth, Prob) and basic types are supported", typ)
	}
	switch typ.Kind() {
	case reflect.Struct:
		return "", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return KindInt, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return KindUint, nil
	case reflect.Float32, reflect.Float64:
		return KindFloat, nil
	case reflect.Bool:
		return KindBool, nil
	case reflect.String:
		return KindString, nil
	}
	return "", fmt.Errorf("unsupported type %s (want a unit type of package actors, an integer, "+
		"a float, a bool, a string or a struct of parameters)", typ)
}

// validName reports whether s is a well-formed key segment: [a-z][a-z0-9_]*.
func validName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range []byte(s) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

func joinKey(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// parentKey returns the key of the group holding key ("" for the root).
func parentKey(key string) string {
	i := strings.LastIndexByte(key, '.')
	if i < 0 {
		return ""
	}
	return key[:i]
}

// lastSegment returns the part of key after its last dot.
func lastSegment(key string) string { return key[strings.LastIndexByte(key, '.')+1:] }

// Params returns every parameter, sorted by key, with its current value and its
// default (the value when the Tree was built).
func (t *Tree) Params() []Param {
	ps := make([]Param, len(t.leaves))
	for i, l := range t.leaves {
		ps[i] = l.Param
		ps[i].Value = l.text()
		ps[i].Enum = slices.Clone(l.Enum)
	}
	return ps
}

// Values returns the resolved configuration: every key with its current value,
// sorted by key.
func (t *Tree) Values() []KV {
	kvs := make([]KV, len(t.leaves))
	for i, l := range t.leaves {
		kvs[i] = KV{Key: l.Key, Value: l.text()}
	}
	return kvs
}

// Get returns the current value of key in its text form, which Set accepts.
func (t *Tree) Get(key string) (string, error) {
	l, err := t.lookup(key)
	if err != nil {
		return "", err
	}
	return l.text(), nil
}

// Set parses value as the type of key's field and stores it in the bound struct.
// Unit types take their text form ("2.5GB/s", "75ns", "500MHz", "64B", "0.25");
// integers are decimal and must fit the field; bools are true, false, 1 or 0; an
// enum must be one of its values. An unknown key is an ErrUnknown error suggesting
// close keys; a malformed value is an ErrInvalid error naming the key, the value and
// what is expected. On error nothing changes.
func (t *Tree) Set(key, value string) error {
	l, err := t.lookup(key)
	if err != nil {
		return err
	}
	v, err := l.parse(value)
	if err != nil {
		return err
	}
	l.v.Set(v)
	return nil
}

// ApplyArgs sets every "key=value" item of sets (the repeated --set flags), in
// order; the value is everything after the first '='. Either all items apply or, on
// the first error, none does.
func (t *Tree) ApplyArgs(sets []string) error {
	var as []assignment
	for _, item := range sets {
		key, value, ok := strings.Cut(item, "=")
		if !ok {
			return &Error{kind: ErrInvalid, Key: strings.TrimSpace(item),
				msg: fmt.Sprintf("invalid setting %q: want key=value", item)}
		}
		as = append(as, assignment{key: strings.TrimSpace(key), value: value})
	}
	return t.apply(as)
}

// assignment is one pending Set, from a --set item or a YAML scalar.
type assignment struct {
	key, value string
	line       int // YAML line, 0 for none
}

// apply parses every assignment, then stores them all; on error it stores none.
func (t *Tree) apply(as []assignment) error {
	vals := make([]reflect.Value, len(as))
	for i, a := range as {
		l, err := t.lookup(a.key)
		if err == nil {
			vals[i], err = l.parse(a.value)
		}
		if err != nil {
			return atLine(err, a.line)
		}
	}
	for i, a := range as {
		t.byKey[a.key].v.Set(vals[i])
	}
	return nil
}

// lookup returns the leaf of key, or an ErrUnknown error with suggestions.
func (t *Tree) lookup(key string) (*leaf, error) {
	if l, ok := t.byKey[key]; ok {
		return l, nil
	}
	return nil, t.unknown(key)
}

// Validate checks the configuration: every enum must hold one of its values, and
// every struct of the tree (the root and each group, in key order) that has a
// Validate() error method must accept its fields. Each error is wrapped with the
// key of its group (a leading "name: " that repeats the group's last key segment is
// replaced by the full key) and matches ErrInvalid; all errors are joined. A
// struct's error that only repeats the error of a group inside it (a Validate
// method that validates its groups itself) is left out.
func (t *Tree) Validate() error {
	var errs []error
	for _, l := range t.leaves {
		if l.Kind == KindEnum && !slices.Contains(l.Enum, l.v.String()) {
			errs = append(errs, invalidValue(l, l.v.String(), "want "+orList(l.Enum)))
		}
	}
	found := make([]error, len(t.groupKeys)) // by index in groupKeys
	for i, key := range t.groupKeys {
		if val, ok := t.groups[key].v.Addr().Interface().(validator); ok {
			found[i] = val.Validate()
		}
	}
	for i, err := range found {
		if err != nil && !repeatsInner(t.groupKeys, found, i) {
			errs = append(errs, groupError(t.groupKeys[i], err))
		}
	}
	return errors.Join(errs...)
}

// repeatsInner reports whether the error of group keys[i] contains the message of
// an error of a group inside it.
func repeatsInner(keys []string, found []error, i int) bool {
	msg := found[i].Error()
	for j, inner := range found {
		if inner != nil && j != i && (keys[i] == "" || strings.HasPrefix(keys[j], keys[i]+".")) &&
			strings.Contains(msg, inner.Error()) {
			return true
		}
	}
	return false
}

// groupError wraps err, returned by the Validate method of group key.
func groupError(key string, err error) error {
	msg := err.Error()
	if key != "" {
		msg = key + ": " + strings.TrimPrefix(msg, lastSegment(key)+": ")
	}
	return &Error{kind: ErrInvalid, Key: key, msg: msg, cause: err}
}
