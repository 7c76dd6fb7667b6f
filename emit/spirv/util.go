package spirv

import (
	"fmt"
	"strconv"
)

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

func itoa(i int) string { return strconv.Itoa(i) }

// idSet is a set of result ids, which are small and dense: a bitmap (a map
// cost a hash per type, constant and name).
type idSet []uint64

func (s *idSet) add(id uint32) {
	i := int(id / 64)
	for len(*s) <= i {
		*s = append(*s, 0)
	}
	(*s)[i] |= 1 << (id % 64)
}

func (s idSet) has(id uint32) bool {
	i := int(id / 64)
	return i < len(s) && s[i]&(1<<(id%64)) != 0
}
