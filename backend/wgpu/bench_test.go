//go:build !js

package wgpu

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
)

// The CPU cost of recording and submitting: many tiny dispatches (one
// 64-invocation workgroup each) so the GPU time is negligible next to it.
// scripts/h200-backend.sh runs these on the H200 and docs/PERF.md records
// the numbers.

func benchSetup(b *testing.B) (*backend.Device, *backend.Pipeline, backend.Args) {
	d := openDevice(b)
	p := loadSaxpy(b, d)
	x, err := d.AllocZeroed(256)
	if err != nil {
		b.Fatal(err)
	}
	y, err := d.AllocZeroed(256)
	if err != nil {
		b.Fatal(err)
	}
	return d, p, saxpyArgs(1, 64, x.View(), y.View())
}

// BenchmarkDispatchInScope records b.N dispatches in scopes of 1000 (one
// compute pass and one submit per scope): the per-dispatch CPU cost inside
// a scope, submit amortised.
func BenchmarkDispatchInScope(b *testing.B) {
	d, p, args := benchSetup(b)
	const perScope = 1000
	var inEnd, cpuEnd time.Duration
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	end := func(s *backend.Scope) {
		t0, c0 := time.Now(), threadCPU()
		if err := s.End(); err != nil {
			b.Fatal(err)
		}
		inEnd += time.Since(t0)
		cpuEnd += threadCPU() - c0
	}
	b.ResetTimer()
	s := d.Begin()
	for i := 0; i < b.N; i++ {
		if err := d.Dispatch(p, args, backend.Groups(1)); err != nil {
			b.Fatal(err)
		}
		if i%perScope == perScope-1 {
			end(s)
			s = d.Begin()
		}
	}
	end(s)
	b.StopTimer()
	waitIdle(b, d)
	n := float64(b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n/1e3, "µs/dispatch")
	b.ReportMetric(float64(inEnd.Nanoseconds())/n/1e3, "µs-submit/dispatch")
	b.ReportMetric(float64(cpuEnd.Nanoseconds())/n/1e3, "µs-submit-cpu/dispatch")
}

// threadCPU is the CPU time the calling OS thread has used: what End costs
// this thread, apart from waiting (lavapipe runs the GPU work on the same
// two cores).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkScopeIdle is the host cost of a scope of 1,000 dispatches,
// recording and submit, with the device idle when the scope starts (the
// wait for the previous scope is not timed): on lavapipe, where the "GPU"
// shares the CPU, this separates the host cost from lavapipe's execution.
func BenchmarkScopeIdle(b *testing.B) {
	d, p, args := benchSetup(b)
	const perScope = 1000
	b.ResetTimer()
	for i := 0; i < b.N; i += perScope {
		b.StopTimer()
		waitIdle(b, d)
		b.StartTimer()
		s := d.Begin()
		for j := i; j < min(i+perScope, b.N); j++ {
			if err := d.Dispatch(p, args, backend.Groups(1)); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.End(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	waitIdle(b, d)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/dispatch")
}

// BenchmarkDispatchRecordOnly is the recording cost alone: dispatches in one
// open scope, timed without the submit at its end.
func BenchmarkDispatchRecordOnly(b *testing.B) {
	d, p, args := benchSetup(b)
	s := d.Begin()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := d.Dispatch(p, args, backend.Groups(1)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := s.End(); err != nil {
		b.Fatal(err)
	}
	waitIdle(b, d)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/dispatch")
}

// BenchmarkSubmitEach submits every dispatch on its own (no scope): the
// per-submit CPU cost, without waiting for the GPU.
func BenchmarkSubmitEach(b *testing.B) {
	d, p, args := benchSetup(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := d.Dispatch(p, args, backend.Groups(1)); err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 {
			waitIdle(b, d) // keep the queue from growing without bound
		}
	}
	b.StopTimer()
	waitIdle(b, d)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/submit")
}

// BenchmarkSubmitWait submits every dispatch and waits for it: the round
// trip a step pays when it reads back after each kernel.
func BenchmarkSubmitWait(b *testing.B) {
	d, p, args := benchSetup(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := d.Dispatch(p, args, backend.Groups(1)); err != nil {
			b.Fatal(err)
		}
		waitIdle(b, d)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/round-trip")
}

func waitIdle(b *testing.B, d *backend.Device) {
	if err := d.Wait(ctx); err != nil {
		b.Fatal(err)
	}
}
