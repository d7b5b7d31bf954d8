package jsonarray

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestEachYieldsElementsInPlace(t *testing.T) {
	raw := []byte(` [ {"a":"}]\\\"[{"} , "x\\\"]",[1,[2,{}]],  null ,3.5,true ] `)
	var got []string
	if err := Each(raw, func(e []byte) error { got = append(got, string(e)); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"a":"}]\\\"[{"}`, `"x\\\"]"`, `[1,[2,{}]]`, `null`, `3.5`, `true`}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("element %d: %q, want %q", i, got[i], want[i])
		}
	}
	if err := Each([]byte(`[]`), func([]byte) error { t.Error("called on an empty array"); return nil }); err != nil {
		t.Error(err)
	}
	stop := errors.New("stop")
	n := 0
	if err := Each(raw, func([]byte) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("fn's error: %v after %d", err, n)
	}
	if err := Each([]byte(`{"a":1}`), func([]byte) error { return nil }); err != ErrNotArray {
		t.Errorf("object: %v", err)
	}
	if err := Each([]byte(`[1,}`), func([]byte) error { return nil }); err != ErrMalformed {
		t.Errorf("malformed: %v", err)
	}
}

func TestSpanKeepsTheBytes(t *testing.T) {
	var v struct{ S, N Span }
	body := []byte(`{"S":{"x":[1,2]},"N":null}`)
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	if string(v.S) != `{"x":[1,2]}` || !v.S.Present() || v.N.Present() {
		t.Errorf("S %q present %v, N present %v", v.S, v.S.Present(), v.N.Present())
	}
	out, err := json.Marshal(v)
	if err != nil || string(out) != `{"S":{"x":[1,2]},"N":null}` {
		t.Errorf("marshal: %s %v", out, err)
	}
}

// FuzzEach: on any input Each returns an error or yields exactly the elements encoding/json
// sees, byte for byte equivalent.
func FuzzEach(f *testing.F) {
	for _, s := range []string{`[]`, `[1]`, ` [ {"a":"}]\""} , "x\"]",[1,[2,{}]], null ,3.5,true ] `, `{"a":[]}`, `[1,`, `"[1]"`, ` null `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		Count(raw, 1<<20) // terminates without a panic on anything
		var got []json.RawMessage
		err := Each(raw, func(e []byte) error { got = append(got, e); return nil })
		var want []json.RawMessage
		if json.Unmarshal(raw, &want) != nil {
			if err == nil {
				t.Fatalf("%q: no error for what encoding/json refuses", raw)
			}
			return
		}
		if want == nil && err == ErrNotArray { // null decodes to a nil slice; it is not an array
			return
		}
		if err != nil || len(got) != len(want) {
			t.Fatalf("%q: %d elements (%v), encoding/json has %d", raw, len(got), err, len(want))
		}
		if n, err := Count(raw, len(want)+1); err != nil || n != len(want) {
			t.Fatalf("%q: Count = %d (%v), encoding/json has %d elements", raw, n, err, len(want))
		}
		if len(want) > 1 {
			if n, _ := Count(raw, 1); n != 1 {
				t.Fatalf("%q: Count with limit 1 = %d", raw, n)
			}
		}
		for i := range want {
			var a, b any
			if json.Unmarshal(got[i], &a) != nil || json.Unmarshal(want[i], &b) != nil {
				t.Fatalf("%q: element %d %q does not decode", raw, i, got[i])
			}
		}
	})
}
