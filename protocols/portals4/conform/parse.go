package conform

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Node is an element of a test file.
type Node struct {
	Name     string
	Attrs    []xml.Attr // in document order, which matters (run.c get_attr)
	Children []*Node
	Line     int
}

// Parse reads a test file: one <test> root element.
func Parse(data []byte) (*Node, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var stack []*Node
	var root *Node
	for {
		line, _ := d.InputPos()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		var syntax *xml.SyntaxError
		if errors.As(err, &syntax) {
			return nil, err // it names its line
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &Node{Name: t.Name.Local, Attrs: append([]xml.Attr(nil), t.Attr...), Line: line}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			} else if root != nil {
				return nil, fmt.Errorf("line %d: a second root element <%s>", line, n.Name)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if root == nil {
		return nil, errors.New("no root element")
	}
	if root.Name != "test" {
		return nil, fmt.Errorf("line %d: root element is <%s>, want <test>", root.Line, root.Name)
	}
	return root, nil
}

// strtoll is C's strtoll(s, NULL, 0): leading blanks, a sign, a 0x or 0 prefix, the
// longest run of digits, saturation on overflow, 0 when nothing parses.
func strtoll(s string) int64 {
	neg, u, over := cparse(s)
	if neg {
		if over || u > 1<<63 {
			return math.MinInt64
		}
		return -int64(u)
	}
	if over || u > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(u)
}

// strtoull is C's strtoull(s, NULL, 0): a negative number wraps.
func strtoull(s string) uint64 {
	neg, u, over := cparse(s)
	if over {
		return math.MaxUint64
	}
	if neg {
		return -u
	}
	return u
}

func cparse(s string) (neg bool, u uint64, over bool) {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	base := uint64(10)
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexDigit(s[2]) >= 0:
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	for i := 0; i < len(s); i++ {
		d := hexDigit(s[i])
		if d < 0 || uint64(d) >= base {
			break
		}
		if u > (math.MaxUint64-uint64(d))/base {
			over = true
		}
		u = u*base + uint64(d)
	}
	return neg, u, over
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// strtod is C's strtod: the longest prefix that is a decimal floating-point number
// (or inf, nan), 0 when none.
func strtod(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	end := 0
	if end < len(s) && (s[end] == '+' || s[end] == '-') {
		end++
	}
	rest := strings.ToLower(s[end:])
	if strings.HasPrefix(rest, "inf") || strings.HasPrefix(rest, "nan") {
		v, _ := strconv.ParseFloat(s[:end+3], 64)
		return v
	}
	digits := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
		digits++
	}
	if end < len(s) && s[end] == '.' {
		end++
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if end < len(s) && (s[end] == 'e' || s[end] == 'E') {
		e := end + 1
		if e < len(s) && (s[e] == '+' || s[e] == '-') {
			e++
		}
		if e < len(s) && s[e] >= '0' && s[e] <= '9' {
			for e < len(s) && s[e] >= '0' && s[e] <= '9' {
				e++
			}
			end = e
		}
	}
	v, err := strconv.ParseFloat(s[:end], 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0
	}
	return v
}

// complexPair parses "(re, im)" as sscanf("(%f, %f)") does; a missing part stays 0.
func complexPair(s string) (float64, float64) {
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, "(") {
		return 0, 0
	}
	parts := strings.SplitN(s[1:], ",", 2)
	re := strtod(parts[0])
	if len(parts) < 2 {
		return re, 0
	}
	return re, strtod(parts[1])
}
