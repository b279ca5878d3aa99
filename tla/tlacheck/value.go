package tlacheck

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// A Value is a TLA+ value as tla-checker prints it in traces and in DOT
// state labels: integers, strings, booleans, model values, tuples <<..>>,
// records [f |-> v, ..], functions (k :> v @@ ..) and sets {..}. A function
// whose domain is 1..n prints as a tuple; Index reads both alike.
type Value struct {
	Kind   ValueKind
	Int    int64
	Str    string // string, model value or boolean ("TRUE"/"FALSE")
	Elems  []Value
	Fields map[string]Value
	Keys   []Value // function domain, in printed order (Elems holds the values)
}

// ValueKind says which field of a Value is meaningful.
type ValueKind uint8

const (
	VInt ValueKind = iota
	VString
	VBool
	VModel
	VTuple
	VRecord
	VFunc
	VSet
)

// Field returns a record's field, failing loudly on a missing one.
func (v Value) Field(name string) (Value, error) {
	if v.Kind != VRecord {
		return Value{}, fmt.Errorf("field %s of a non-record %s", name, v)
	}
	f, ok := v.Fields[name]
	if !ok {
		return Value{}, fmt.Errorf("record %s has no field %s", v, name)
	}
	return f, nil
}

// Index applies a tuple (1-based) or an integer-keyed function to i.
func (v Value) Index(i int64) (Value, error) {
	switch v.Kind {
	case VTuple:
		if i >= 1 && int(i) <= len(v.Elems) {
			return v.Elems[i-1], nil
		}
	case VFunc:
		for k, key := range v.Keys {
			if key.Kind == VInt && key.Int == i {
				return v.Elems[k], nil
			}
		}
	}
	return Value{}, fmt.Errorf("%s has no element %d", v, i)
}

// Len is the length of a tuple (or the size of a function's domain).
func (v Value) Len() int { return len(v.Elems) }

func (v Value) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v Value) write(b *strings.Builder) {
	switch v.Kind {
	case VInt:
		b.WriteString(strconv.FormatInt(v.Int, 10))
	case VString:
		b.WriteString(strconv.Quote(v.Str))
	case VBool, VModel:
		b.WriteString(v.Str)
	case VTuple, VSet:
		open, close := "<<", ">>"
		if v.Kind == VSet {
			open, close = "{", "}"
		}
		b.WriteString(open)
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteString(close)
	case VRecord:
		names := make([]string, 0, len(v.Fields))
		for n := range v.Fields {
			names = append(names, n)
		}
		sort.Strings(names)
		b.WriteString("[")
		for i, n := range names {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(n + " |-> ")
			f := v.Fields[n]
			f.write(b)
		}
		b.WriteString("]")
	case VFunc:
		b.WriteString("(")
		for i := range v.Keys {
			if i > 0 {
				b.WriteString(" @@ ")
			}
			v.Keys[i].write(b)
			b.WriteString(" :> ")
			v.Elems[i].write(b)
		}
		b.WriteString(")")
	}
}

// ParseValue parses one value printed by tla-checker.
func ParseValue(s string) (Value, error) {
	p := &valueParser{s: s}
	v, err := p.value()
	if err != nil {
		return Value{}, err
	}
	p.space()
	if p.i != len(p.s) {
		return Value{}, p.errorf("trailing text")
	}
	return v, nil
}

// ParseAssignments parses a state printed as "var=value" (DOT labels, one
// per line) or "var = value" (traces) into a map from variable to value.
func ParseAssignments(lines string) (map[string]Value, error) {
	out := map[string]Value{}
	for _, line := range strings.Split(lines, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("state line %q: no '='", line)
		}
		v, err := ParseValue(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", strings.TrimSpace(name), err)
		}
		out[strings.TrimSpace(name)] = v
	}
	return out, nil
}

type valueParser struct {
	s string
	i int
}

func (p *valueParser) errorf(format string, args ...any) error {
	return fmt.Errorf("value %q at offset %d: %s", p.s, p.i, fmt.Sprintf(format, args...))
}

func (p *valueParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *valueParser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

func (p *valueParser) value() (Value, error) {
	first, err := p.primary()
	if err != nil {
		return Value{}, err
	}
	// A function (k :> v @@ k :> v) may appear without its parentheses.
	if !p.eat(":>") {
		return first, nil
	}
	fn := Value{Kind: VFunc}
	key := first
	for {
		val, err := p.primary()
		if err != nil {
			return Value{}, err
		}
		fn.Keys = append(fn.Keys, key)
		fn.Elems = append(fn.Elems, val)
		if !p.eat("@@") {
			return fn, nil
		}
		if key, err = p.primary(); err != nil {
			return Value{}, err
		}
		if !p.eat(":>") {
			return Value{}, p.errorf("want :>")
		}
	}
}

func (p *valueParser) list(end string, kind ValueKind) (Value, error) {
	v := Value{Kind: kind}
	if p.eat(end) {
		return v, nil
	}
	for {
		e, err := p.value()
		if err != nil {
			return Value{}, err
		}
		v.Elems = append(v.Elems, e)
		if p.eat(end) {
			return v, nil
		}
		if !p.eat(",") {
			return Value{}, p.errorf("want , or %s", end)
		}
	}
}

func (p *valueParser) primary() (Value, error) {
	p.space()
	if p.i >= len(p.s) {
		return Value{}, p.errorf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case strings.HasPrefix(p.s[p.i:], "<<"):
		p.i += 2
		return p.list(">>", VTuple)
	case c == '{':
		p.i++
		return p.list("}", VSet)
	case c == '(':
		p.i++
		v, err := p.value()
		if err != nil {
			return Value{}, err
		}
		if !p.eat(")") {
			return Value{}, p.errorf("want )")
		}
		return v, nil
	case c == '[':
		p.i++
		rec := Value{Kind: VRecord, Fields: map[string]Value{}}
		if p.eat("]") {
			return rec, nil
		}
		for {
			p.space()
			start := p.i
			for p.i < len(p.s) && (isIdent(p.s[p.i])) {
				p.i++
			}
			name := p.s[start:p.i]
			if name == "" || !p.eat("|->") {
				return Value{}, p.errorf("want field |-> value")
			}
			f, err := p.value()
			if err != nil {
				return Value{}, err
			}
			rec.Fields[name] = f
			if p.eat("]") {
				return rec, nil
			}
			if !p.eat(",") {
				return Value{}, p.errorf("want , or ]")
			}
		}
	case c == '"':
		j := p.i + 1
		var b strings.Builder
		for j < len(p.s) && p.s[j] != '"' {
			if p.s[j] == '\\' && j+1 < len(p.s) {
				j++
			}
			b.WriteByte(p.s[j])
			j++
		}
		if j >= len(p.s) {
			return Value{}, p.errorf("unterminated string")
		}
		p.i = j + 1
		return Value{Kind: VString, Str: b.String()}, nil
	case c == '-' || c >= '0' && c <= '9':
		j := p.i + 1
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		n, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil {
			return Value{}, p.errorf("bad integer")
		}
		p.i = j
		return Value{Kind: VInt, Int: n}, nil
	case isIdent(c):
		j := p.i
		for j < len(p.s) && isIdent(p.s[j]) {
			j++
		}
		word := p.s[p.i:j]
		p.i = j
		switch word {
		case "TRUE", "true":
			return Value{Kind: VBool, Str: "TRUE"}, nil
		case "FALSE", "false":
			return Value{Kind: VBool, Str: "FALSE"}, nil
		}
		return Value{Kind: VModel, Str: word}, nil
	}
	return Value{}, p.errorf("unexpected %q", p.s[p.i])
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
