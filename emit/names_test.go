package emit

import "testing"

func TestNamer(t *testing.T) {
	w := &Words{
		Reserved: func(s string) bool { return s == "loop" || s == "float" },
		Prefixes: []string{"kc_", "__"},
		Invalid:  []string{"_"},
		Escape:   "x",
	}
	for in, want := range map[string]string{
		"a": "a", "loop": "loop_", "kc_t": "xkc_t", "KC_t": "xKC_t", "__a": "x__a", "_": "x_", "_a": "_a", "": "x", "π": "π",
	} {
		if got := w.Legal(in); got != want {
			t.Errorf("Legal(%q) = %q, want %q", in, got, want)
		}
	}
	ascii := &Words{Escape: "u_", ASCII: true}
	for in, want := range map[string]string{"π": "_u3c0_", "a1": "a1", "1a": "_1a"} {
		if got := ascii.Legal(in); got != want {
			t.Errorf("ASCII Legal(%q) = %q, want %q", in, got, want)
		}
	}
	n := NewNamer(w)
	inner := n.Scope()
	got := []string{n.Name("a"), inner.Name("a"), inner.Fresh("kc_t0"), inner.Name("kc_t0"), n.Name("b"), inner.Name("b")}
	// inner sees b, which n gave out after inner was made.
	want := []string{"a", "a_1", "kc_t0", "xkc_t0", "b", "b_1"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("names %v, want %v", got, want)
		}
	}
	n.Reserve("c")
	if got := inner.Name("c"); got != "c_1" {
		t.Errorf("after Reserve(c): %s", got)
	}
}
