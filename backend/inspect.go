package backend

import (
	"errors"
	"fmt"
)

// PipelineStat is one figure a driver reports about a compiled pipeline
// (VK_KHR_pipeline_executable_properties on Vulkan): register count, local
// memory (spills), shared memory, instruction counts, whatever the driver
// names. Executable is the compiled program it describes (one per shader
// stage, or more where the driver builds several); booleans are 0 or 1.
type PipelineStat struct {
	Executable  string
	Name        string
	Description string
	Value       float64
}

// String writes "Name=Value" (integers without a fraction).
func (s PipelineStat) String() string { return fmt.Sprintf("%s=%g", s.Name, s.Value) }

// PipelineRepresentation is a driver's internal form of a compiled
// pipeline (an intermediate language or machine code), as text or as
// opaque bytes.
type PipelineRepresentation struct {
	Executable  string
	Name        string
	Description string
	Text        bool
	Data        []byte
}

// PipelineInspector is implemented by a driver's PipelineImpl when it can
// report what the driver compiled. Statistics and Representations return
// ErrNoStatistics when the pipeline was created without capturing them.
type PipelineInspector interface {
	Statistics() ([]PipelineStat, error)
	Representations() ([]PipelineRepresentation, error)
}

// ErrNoStatistics means a pipeline has no compile statistics to report:
// the driver or device does not offer them, or they were not captured
// (the Vulkan driver captures them with KC_VULKAN_STATS set when the
// pipeline is created; see package vulkan).
var ErrNoStatistics = errors.New("backend: no pipeline statistics (the driver does not offer them, or they were not captured: KC_VULKAN_STATS=1)")

// Statistics returns what the driver reports about the compiled pipeline,
// in the driver's order, or ErrNoStatistics.
func (p *Pipeline) Statistics() ([]PipelineStat, error) {
	return inspect(p, PipelineInspector.Statistics)
}

// Representations returns the driver's internal forms of the compiled
// pipeline (captured with KC_VULKAN_STATS=ir on Vulkan), or
// ErrNoStatistics.
func (p *Pipeline) Representations() ([]PipelineRepresentation, error) {
	return inspect(p, PipelineInspector.Representations)
}

// inspect asks p's driver, under the device's lock, with f: ErrNoStatistics
// where the driver cannot report, ErrClosed once the device is closed.
func inspect[T any](p *Pipeline, f func(PipelineInspector) ([]T, error)) ([]T, error) {
	in, ok := p.impl.(PipelineInspector)
	if !ok {
		return nil, ErrNoStatistics
	}
	p.dev.mu.Lock()
	defer p.dev.mu.Unlock()
	if p.dev.closed {
		return nil, ErrClosed
	}
	return f(in)
}
