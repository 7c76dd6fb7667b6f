//go:build !(linux && cgo)

package vulkan

import (
	"context"
	"errors"

	"github.com/kcgo/kc/backend"
)

// errNoDriver is what the stub driver answers.
var errNoDriver = errors.New("vulkan: this kc was built without the Vulkan driver (it needs cgo on linux; build with CGO_ENABLED=1)")

func init() { backend.Register(stub{}) }

// stub is the driver registered when the real one cannot be built.
type stub struct{}

// Name implements backend.Driver.
func (stub) Name() string { return "vulkan" }

// Adapters implements backend.Driver: always an error saying why.
func (stub) Adapters(context.Context) ([]backend.AdapterInfo, error) { return nil, errNoDriver }

// Open implements backend.Driver: always an error saying why.
func (stub) Open(context.Context, int) (backend.DeviceImpl, error) { return nil, errNoDriver }
