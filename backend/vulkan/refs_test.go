//go:build linux && cgo

package vulkan

import "testing"

// TestAddRefPrunes: a buffer's notes of the sets that bind it keep every
// set still cached and stay within twice the live notes plus
// minRefPrune when sets come and go (each pruning, a pass over the
// notes, runs only once the list has doubled).
func TestAddRefPrunes(t *testing.T) {
	p := &pipeline{sets: map[setKey]cachedSet{}}
	var b buffer
	key := func(i int) setKey {
		var k setKey
		k.n, k.r[0].off = 1, int64(i)
		return k
	}
	const live = 100
	for i := 0; i < 5000; i++ {
		k := key(i)
		p.sets[k] = cachedSet{}
		b.addRef(setRef{p: p, key: k})
		// only the last `live` sets stay cached
		if i >= live {
			delete(p.sets, key(i-live))
		}
		if n := len(b.refs); n > 2*live+minRefPrune {
			t.Fatalf("after %d sets: %d notes, more than 2·%d + %d", i+1, n, live, minRefPrune)
		}
	}
	noted := map[setKey]bool{}
	for _, r := range b.refs {
		noted[r.key] = true
	}
	for k := range p.sets {
		if !noted[k] {
			t.Fatalf("cached set %+v has no note on the buffer that it binds", k.r[0])
		}
	}
}
