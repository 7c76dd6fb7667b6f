package spirv

import (
	"fmt"
	"strconv"
)

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

func itoa(i int) string { return strconv.Itoa(i) }
